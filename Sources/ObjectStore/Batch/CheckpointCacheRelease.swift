// While SQLite checkpoints a large write-ahead log at a batch's commit, tells the kernel to drop the log's
// pages that the checkpoint has already copied into the store.
//
// Why this exists: a first load of 10,000,000 lines writes a 670 MB log, and the checkpoint at commit copies
// it into the store, so the page cache must hold both (1.3 GB) unless the log's pages are given back as they
// are consumed. On this project's bench machine (a VM whose free memory goes back to its host), page cache
// past a few hundred MB costs the kernel several times more per page than memory it has just freed. On the
// 10M-line bench file the commit took 3.51–3.74 s with the log kept in cache and 1.75–2.18 s with its copied
// pages given back, with no more bytes read from disk (README "Import › Speed"). A log page is never read
// again once copied: after the checkpoint the log is reset or deleted. (Dropping the whole log's pages
// instead, copied or not, made the checkpoint read them back from disk: 0.8–3.5 GB more read, and as slow
// as keeping them when done at once before the commit.)
//
// How it knows what was copied. The checkpoint copies pages in increasing page number (SQLite's WAL
// iterator), and the store file grows as it writes pages past its end. The page number of each log frame
// is in the WAL-index (the `-shm` file, whose layout is part of SQLite's documented file format:
// https://www.sqlite.org/walformat.html), read once before the commit. A chunk of frames may be dropped once
// the store file has grown past the largest page number in it. When the store does not grow (a batch that
// only changes existing pages), nothing is dropped and the checkpoint runs as it always did. (This relies on
// the store's memory-mapped I/O being off, as it is: with `mmap_size` set, SQLite sizes the file up front,
// every chunk would look copied at once, and the checkpoint would read the rest back from disk: correct, but
// slower.)
//
// Only `posix_fadvise(POSIX_FADV_DONTNEED)` is used: it never discards data that is not yet on disk (dirty
// pages are written back, not dropped), so the store's durability and SQLite's own syncs are untouched.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class CheckpointCacheRelease: @unchecked Sendable {
    /// Logs smaller than this are left alone, without a thread: the page cache holds them cheaply. (The 1M
    /// bench's 63 MB log commits in the same 0.18–0.20 s with and without the release.)
    static let minimumLogBytes: Int64 = 32 << 20
    /// Frames per chunk given back at once (about 1 MiB with 4 KiB pages).
    static let framesPerChunk = 256

    private let log: Int32
    private let store: Int32
    private let pageSize: Int64
    /// Byte ranges of the log, each with the largest page number among its frames, by that page number.
    private let chunks: [(offset: Int64, length: Int64, largestPage: UInt32)]
    private let storePagesAtStart: Int64
    private let stopped = ManagedFlag()
    private let finished = DispatchSemaphore(value: 0)
    private var started = false
    /// How many chunks were given back (for tests).
    private(set) var chunksReleased = 0

    /// Reads the log's frame map; `nil` when there is nothing worth doing (a small log, no log, a
    /// WAL-index that cannot be read), in which case the commit runs as it always did.
    init?(storePath: String, minimumLogBytes: Int64 = CheckpointCacheRelease.minimumLogBytes) {
        let log = Glibc.open(storePath + "-wal", O_RDONLY | O_CLOEXEC)
        guard log >= 0 else { return nil }
        var logInfo = stat()
        var header = [UInt8](repeating: 0, count: 32)
        guard fstat(log, &logInfo) == 0, Int64(logInfo.st_size) >= minimumLogBytes,
              pread(log, &header, 32, 0) == 32,
              let pageSize = Self.pageSize(fromLogHeader: header),
              let pages = Self.framePages(shmPath: storePath + "-shm",
                                          frames: Int((Int64(logInfo.st_size) - 32) / (24 + pageSize))),
              !pages.isEmpty
        else { Glibc.close(log); return nil }
        let store = Glibc.open(storePath, O_RDONLY | O_CLOEXEC)
        var storeInfo = stat()
        guard store >= 0, fstat(store, &storeInfo) == 0 else {
            if store >= 0 { Glibc.close(store) }
            Glibc.close(log)
            return nil
        }
        self.log = log
        self.store = store
        self.pageSize = pageSize
        storePagesAtStart = Int64(storeInfo.st_size) / pageSize
        chunks = Self.chunks(framePages: pages, pageSize: pageSize, framesPerChunk: Self.framesPerChunk)
    }

    deinit {
        stop()
        Glibc.close(log)
        Glibc.close(store)
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
        var info = stat()
        guard fstat(store, &info) == 0 else { return next }
        let storePages = Int64(info.st_size) / pageSize
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

    // MARK: Reading SQLite's files

    /// The page size from a WAL header: magic 0x377f0682 or 0x377f0683, then the format version, then the
    /// page size (big-endian; 1 stands for 65536).
    static func pageSize(fromLogHeader header: [UInt8]) -> Int64? {
        guard header.count >= 12 else { return nil }
        func bigEndian(_ at: Int) -> UInt32 { header[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        guard bigEndian(0) & 0xFFFF_FFFE == 0x377F_0682 else { return nil }
        let size = bigEndian(8)
        if size == 1 { return 65536 }
        guard size >= 512, size <= 32768, size & (size - 1) == 0 else { return nil }
        return Int64(size)
    }

    /// The page number of each of the first `frames` frames, from the WAL-index: 32 KiB segments, the first
    /// starting with a 136-byte header, each holding an array of 32-bit page numbers (native byte order),
    /// 4062 in the first segment and 4096 in the others, followed by a hash table.
    static func framePages(shmPath: String, frames: Int) -> [UInt32]? {
        guard frames > 0 else { return [] }
        let fd = Glibc.open(shmPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        var pages: [UInt32] = []
        pages.reserveCapacity(frames)
        var buffer = [UInt32](repeating: 0, count: 4096)
        var segment = 0
        while pages.count < frames {
            let (first, count) = segment == 0 ? (136, 4062) : (segment * 32768, 4096)
            let wanted = min(count, frames - pages.count)
            guard first + wanted * 4 <= size else { return nil }
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted * 4, off_t(first)) }
            guard n == wanted * 4 else { return nil }
            pages.append(contentsOf: buffer[0..<wanted])
            segment += 1
        }
        return pages
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
