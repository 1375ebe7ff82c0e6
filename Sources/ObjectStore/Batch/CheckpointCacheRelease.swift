// While SQLite checkpoints a large write-ahead log at a batch's commit, tells the kernel to drop the log's
// pages that the checkpoint has already copied into the store, so the page cache need not hold both (on the
// bench machine, page cache past a few hundred MB costs the kernel several times more per page; the 10M-line
// commit took half the time). Measurements and the variants left out: docs/design/import-speed.md.
//
// What was copied: the checkpoint copies pages in increasing page number and the store grows as it writes
// past its end, so a chunk of log frames (page numbers read from the frame headers before the commit) may be
// dropped once the store is larger than its largest page. This needs the store's mmap off, as it is.
//
// Never opens the store or its -shm: closing any descriptor of a file drops all of the process's POSIX locks
// on it, SQLite's included; only the -wal, on which SQLite takes no locks. Only POSIX_FADV_DONTNEED is used,
// which never discards data not yet on disk, so durability and SQLite's syncs are untouched.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class CheckpointCacheRelease: @unchecked Sendable {
    /// Logs smaller than this are left alone, without a thread: the page cache holds them cheaply (the 1M
    /// bench's 63 MB log commits as fast either way).
    static let minimumLogBytes: Int64 = 32 << 20
    /// Frames per chunk given back at once (about 1 MiB with 4 KiB pages).
    static let framesPerChunk = 256

    private let log: Int32
    private let storePath: String
    private let pageSize: Int64
    /// Byte ranges of the log, each with the largest page number among its frames, by that page number.
    private let chunks: [(offset: Int64, length: Int64, largestPage: UInt32)]
    private let storePagesAtStart: Int64
    private let stopped = ManagedFlag()
    private let finished = DispatchSemaphore(value: 0)
    private var started = false
    /// How many chunks were given back (for tests).
    private(set) var chunksReleased = 0

    /// Reads the log's frame map; `nil` when there is nothing worth doing (a small log, no log, a log that
    /// cannot be read), in which case the commit runs as it always did.
    init?(storePath: String, minimumLogBytes: Int64 = CheckpointCacheRelease.minimumLogBytes) {
        let log = Glibc.open(storePath + "-wal", O_RDONLY | O_CLOEXEC)
        guard log >= 0 else { return nil }
        var logInfo = stat()
        guard fstat(log, &logInfo) == 0, Int64(logInfo.st_size) >= minimumLogBytes,
              let (pageSize, pages) = Self.framePages(log: log, size: Int64(logInfo.st_size)), !pages.isEmpty,
              let storeSize = Self.fileSize(storePath)
        else { Glibc.close(log); return nil }
        self.log = log
        self.storePath = storePath
        self.pageSize = pageSize
        storePagesAtStart = storeSize / pageSize
        chunks = Self.chunks(framePages: pages, pageSize: pageSize, framesPerChunk: Self.framesPerChunk)
    }

    deinit {
        stop()
        Glibc.close(log)   // the -wal file: SQLite holds no locks on it (see the top of this file)
    }

    /// Starts watching the store file grow, on a thread of its own.
    func start() {
        guard !started else { return }
        started = true
        let thread = Thread { [self] in
            defer { finished.signal() }
            var next = 0
            while true {
                // One last pass after `stop`: the commit is over, and what it copied can go.
                let stopping = stopped.value
                next = releaseCopied(from: next)
                if stopping || next == chunks.count { break }
                usleep(10_000)
            }
        }
        thread.start()
    }

    /// Stops the thread after a last pass, and waits for it; safe to call more than once.
    func stop() {
        guard started, !stopped.value else { return }
        stopped.value = true
        finished.wait()
    }

    /// Gives back the chunks, from `next` on, whose pages are all copied; returns the first one that is not.
    private func releaseCopied(from next: Int) -> Int {
        guard let size = Self.fileSize(storePath) else { return next }
        let storePages = size / pageSize
        // Until the checkpoint writes past the store's old end, the file's size says nothing about progress.
        guard storePages > storePagesAtStart else { return next }
        var i = next
        // A page is copied once a later one is: the checkpoint goes in page order, so all pages below the
        // file's last full page are done.
        while i < chunks.count, Int64(chunks[i].largestPage) < storePages {
            posix_fadvise(log, off_t(chunks[i].offset), off_t(chunks[i].length), POSIX_FADV_DONTNEED)
            i += 1
        }
        chunksReleased = i
        return i
    }

    /// A file's size by path, without opening it.
    private static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    // MARK: Reading SQLite's files

    /// The page size from a WAL header: magic 0x377f0682 or 0x377f0683, the format version, then the page
    /// size, big-endian (512 to 65536, a power of two).
    static func pageSize(fromLogHeader header: [UInt8]) -> Int64? {
        guard header.count >= 12, bigEndian(header, at: 0) & 0xFFFF_FFFE == 0x377F_0682 else { return nil }
        let size = bigEndian(header, at: 8)
        guard size >= 512, size <= 65536, size & (size - 1) == 0 else { return nil }
        return Int64(size)
    }

    /// The page size and the page number of each whole frame of the log open as `log`, from the frames'
    /// headers: 24 bytes before each page, the page number first and the header's two salts at bytes 8–15.
    /// A frame whose salts differ from the log header's is left over from an earlier log: page 0. (Frames of
    /// the open transaction may have zeros there: SQLite writes their salts and checksums at the commit once
    /// the transaction has rewritten a frame.)
    static func framePages(log: Int32, size: Int64) -> (pageSize: Int64, pages: [UInt32])? {
        var header = [UInt8](repeating: 0, count: 32)
        guard pread(log, &header, 32, 0) == 32, let pageSize = pageSize(fromLogHeader: header) else { return nil }
        let salts = header[16..<24]
        let frameSize = Int(24 + pageSize)
        let frames = Int((size - 32) / Int64(frameSize))
        var pages: [UInt32] = []
        pages.reserveCapacity(frames)
        // Whole frames at a time, about 1 MiB per read: one read(2) per frame header would be 165,000 calls
        // for the 10M bench's log.
        let framesPerRead = max(1, (1 << 20) / frameSize)
        var buffer = [UInt8](repeating: 0, count: framesPerRead * frameSize)
        while pages.count < frames {
            let count = min(framesPerRead, frames - pages.count)
            let offset = off_t(32 + pages.count * frameSize)
            let n = buffer.withUnsafeMutableBytes { pread(log, $0.baseAddress, count * frameSize, offset) }
            guard n == count * frameSize else { return nil }
            for k in 0..<count {
                let at = k * frameSize
                let frameSalts = buffer[at + 8..<at + 16]
                let current = frameSalts.elementsEqual(salts) || frameSalts.allSatisfy { $0 == 0 }
                pages.append(current ? bigEndian(buffer, at: at) : 0)
            }
        }
        return (pageSize, pages)
    }

    private static func bigEndian(_ bytes: [UInt8], at i: Int) -> UInt32 {
        UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
    }

    /// Groups frames into chunks of `framesPerChunk`, each the byte range of its frames in the log with the
    /// largest page number among them, sorted by that page number (the order the checkpoint frees them in).
    static func chunks(framePages pages: [UInt32], pageSize: Int64, framesPerChunk: Int)
        -> [(offset: Int64, length: Int64, largestPage: UInt32)] {
        let frameSize = 24 + pageSize
        var chunks: [(offset: Int64, length: Int64, largestPage: UInt32)] = []
        chunks.reserveCapacity(pages.count / framesPerChunk + 1)
        var start = 0
        while start < pages.count {
            let end = min(start + framesPerChunk, pages.count)
            chunks.append((offset: 32 + Int64(start) * frameSize, length: Int64(end - start) * frameSize,
                           largestPage: pages[start..<end].max()!))
            start = end
        }
        chunks.sort { $0.largestPage < $1.largestPage }
        return chunks
    }
}

/// A Boolean shared between two threads.
private final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false

    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
