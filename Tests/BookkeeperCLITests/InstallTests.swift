// `make install` and `make uninstall` (README: Install), run for real: the release binary installed into a
// temporary prefix, then run from another folder with PATH=/usr/bin:/bin and no Swift toolchain in its
// environment. It lists and runs the shipped reports (found as ../share/bookkeeper/reports beside itself), an
// operator's --reports and $BOOKKEEPER_REPORTS still win, its ELF NEEDED entries are system libraries only, the
// man page and completions are there, and uninstall leaves nothing. They are a tier of their own: `make test-install`
// builds the release binary first (`make release`) and runs them; run alone, the first install here builds it.

import Foundation
import TestSupport
import XCTest

final class InstallTests: XCTestCase {
    static let reportNames = ["customers", "order-details", "sales-by-customer", "sales-by-month", "sales-by-service", "unpaid-orders"]
    static let installedFiles = ["bin/bookkeeper", "share/bash-completion/completions/bookkeeper",
                                 "share/bookkeeper/install-manifest"]
        + reportNames.map { "share/bookkeeper/reports/\($0).yaml" }
        + ["share/fish/vendor_completions.d/bookkeeper.fish", "share/man/man1/bookkeeper.1", "share/zsh/site-functions/_bookkeeper"]

    /// Runs `make TARGET VARIABLES…` in the project, as an operator would.
    func make(_ arguments: [String]) throws -> (status: Int32, output: String) {
        var args = ["/usr/bin/make", "--no-print-directory", "-C", packageRoot.path] + arguments
        if let scratch = ProcessInfo.processInfo.environment["BOOKKEEPER_RELEASE_SCRATCH"] { args.append("RELEASE_SCRATCH=\(scratch)") }
        let r = try runTool(args)
        return (r.status, String(decoding: r.output, as: UTF8.self) + r.error)
    }

    /// Runs an installed program in `directory` with only PATH=/usr/bin:/bin, HOME and TZ set.
    func runInstalled(_ program: String, _ arguments: [String], in directory: String,
                      environment: [String: String] = [:]) throws -> CLIResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": directory, "TZ": "UTC"].merging(environment) { $1 }
        return collect(process)
    }

    /// Every file and folder under `root`, relative to it, sorted.
    func tree(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
    }

    func files(_ root: String) -> [String] {
        tree(root).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    func testInstalledBinaryRunsFromAnywhereWithItsReportsAndUninstallLeavesNothing() throws {
        let tmp = TemporaryDirectory("bookkeeper-install")
        let prefix = tmp.file("prefix")          // not there yet: install makes it, uninstall removes it
        let installed = try make(["install", "PREFIX=\(prefix)"])
        XCTAssertEqual(installed.status, 0, installed.output)
        XCTAssertEqual(files(prefix), Self.installedFiles)
        let bin = prefix + "/bin/bookkeeper"

        // Only system libraries: no libswift*, Foundation, Dispatch or ICU from the toolchain.
        let needed = try neededLibraries(bin)
        XCTAssertFalse(needed.isEmpty)
        for library in needed {
            XCTAssertFalse(["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime", "libicu"]
                .contains { library.hasPrefix($0) }, "\(library) comes with the Swift toolchain: \(needed)")
            XCTAssertTrue(["/lib/x86_64-linux-gnu/", "/usr/lib/x86_64-linux-gnu/", "/lib64/", "/usr/lib/"]
                .contains { FileManager.default.fileExists(atPath: $0 + library) }, "\(library) is not a system library: \(needed)")
        }
        // Exactly the libraries of the packages README names (libsqlite3-0, libxlsxwriter4, libssl3, libpq5, zlib1g,
        // libc6, libstdc++6, libgcc-s1): a new one is a new run-time dependency, for README's list first.
        let allowed = ["libsqlite3.so.0", "libxlsxwriter.so.4", "libcrypto.so.3", "libpq.so.5", "libz.so.1", "libc.so.6",
                       "libm.so.6", "ld-linux-x86-64.so.2", "libstdc++.so.6", "libgcc_s.so.1"]
        for library in needed { XCTAssertTrue(allowed.contains(library), "\(library) is not in README's package list: \(needed)") }
        XCTAssertTrue(needed.contains("libpq.so.5"), "the binary links libpq (PostgreSQL stores): \(needed)")

        // Installed without debug sections, with its symbol table.
        let sections = String(decoding: try runTool(["/usr/bin/readelf", "-S", "-W", bin]).output, as: UTF8.self)
        XCTAssertFalse(sections.contains(".debug_info"), "installed with its debug sections")
        XCTAssertTrue(sections.contains(".symtab"), sections)

        // From another folder, with no toolchain on PATH.
        let work = tmp.file("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let version = try runInstalled(bin, ["--version"], in: work)
        XCTAssertEqual(version.status, 0, "\(version)")
        XCTAssertEqual(version.stdout, runCLI(["--version"]).stdout)

        let listed = try runInstalled(bin, ["reports"], in: work)
        XCTAssertEqual(listed.status, 0, "\(listed)")
        for name in Self.reportNames {
            XCTAssertTrue(listed.stdout.contains("\n\(name) ") || listed.stdout.hasPrefix("\(name) "), "\(name) not listed:\n\(listed)")
        }

        // The sample data imported and every shipped report run: the same text the built binary's tests expect.
        let data = packageRoot.appendingPathComponent("SampleData").path
        XCTAssertEqual(try runInstalled(bin, ["init"], in: work).status, 0)
        for (entity, file) in [("Tag", "tags"), ("Service", "services"), ("Customer", "customers"), ("Order", "orders")] {
            let r = try runInstalled(bin, ["import", entity, "\(data)/\(file).csv", "--profile", "\(data)/\(file).yaml"], in: work)
            XCTAssertEqual(r.status, 0, "import \(file): \(r)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/bookkeeper.sqlite"))
        let expected = packageRoot.appendingPathComponent("Tests/ReportsTests/Expected")
        for name in Self.reportNames {
            let r = try runInstalled(bin, ["report", name], in: work, environment: ["BOOKKEEPER_TODAY": "2026-11-21"])
            XCTAssertEqual(r.status, 0, "\(name): \(r)")
            XCTAssertEqual(r.stdout, String(decoding: try Data(contentsOf: expected.appendingPathComponent("\(name).txt")), as: UTF8.self), name)
        }
        let workbook = try runInstalled(bin, ["report", "--all", "--format", "xlsx", "--output", "all.xlsx"], in: work,
                                        environment: ["BOOKKEEPER_TODAY": "2026-11-21"])
        XCTAssertEqual(workbook.status, 0, "\(workbook)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "/all.xlsx"))

        // An operator's definitions still win: --reports, then $BOOKKEEPER_REPORTS, then the shipped ones.
        let mine = TemporaryDirectory(), theirs = TemporaryDirectory()
        mine.write("unpaid-orders.yaml", "title: Mine\nentity: Order\ncolumns: [number]\n")
        theirs.write("unpaid-orders.yaml", "title: Theirs\nentity: Order\ncolumns: [number]\n")
        theirs.write("extra.yaml", "title: Extra\nentity: Order\ncolumns: [number]\n")
        let env = try runInstalled(bin, ["reports"], in: work, environment: ["BOOKKEEPER_REPORTS": theirs.path])
        XCTAssertEqual(titles(env.stdout)["unpaid-orders"], "Theirs", "\(env)")
        XCTAssertEqual(titles(env.stdout)["extra"], "Extra", "\(env)")
        XCTAssertEqual(titles(env.stdout)["customers"], "Customers", "the shipped ones follow: \(env)")
        let option = try runInstalled(bin, ["reports", "--reports", mine.path], in: work, environment: ["BOOKKEEPER_REPORTS": theirs.path])
        XCTAssertEqual(titles(option.stdout)["unpaid-orders"], "Mine", "\(option)")

        // The man page and the completions.
        let man = try String(contentsOfFile: prefix + "/share/man/man1/bookkeeper.1", encoding: .utf8)
        XCTAssertTrue(man.contains(".Nm bookkeeper"), man)
        for command in ["init", "import", "fetch", "report"] { XCTAssertTrue(man.contains(command), command) }
        let bash = try runTool(["/bin/bash", "-n", prefix + "/share/bash-completion/completions/bookkeeper"])
        XCTAssertEqual(bash.status, 0, bash.error)
        XCTAssertTrue(try String(contentsOfFile: prefix + "/share/zsh/site-functions/_bookkeeper", encoding: .utf8).hasPrefix("#compdef bookkeeper"))
        XCTAssertTrue(try String(contentsOfFile: prefix + "/share/fish/vendor_completions.d/bookkeeper.fish", encoding: .utf8)
            .contains("complete -c 'bookkeeper'"))

        // A second install replaces the first; uninstall then removes every file and folder it made.
        XCTAssertEqual(try make(["install", "PREFIX=\(prefix)"]).status, 0)
        XCTAssertEqual(files(prefix), Self.installedFiles)
        let removed = try make(["uninstall", "PREFIX=\(prefix)"])
        XCTAssertEqual(removed.status, 0, removed.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: prefix), "left behind: \(tree(prefix))")
        XCTAssertNotEqual(try make(["uninstall", "PREFIX=\(prefix)"]).status, 0, "nothing installed is an error")
    }

    func testDestdirStagesAnInstallThatRunsWhereItIsAndKeepsWhatWasThere() throws {
        let tmp = TemporaryDirectory("bookkeeper-destdir")
        let stage = tmp.file("stage")
        // A folder the install shares with other packages, with a file of theirs: uninstall keeps both.
        try FileManager.default.createDirectory(atPath: stage + "/usr/local/share/man/man1", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: stage + "/usr/local/share/man/man1/other.1", contents: Data("other\n".utf8)))

        let installed = try make(["install", "DESTDIR=\(stage)", "PREFIX=/usr/local"])
        XCTAssertEqual(installed.status, 0, installed.output)
        XCTAssertEqual(files(stage + "/usr/local"), (Self.installedFiles + ["share/man/man1/other.1"]).sorted())
        let manifest = try String(contentsOfFile: stage + "/usr/local/share/bookkeeper/install-manifest", encoding: .utf8)
        XCTAssertTrue(manifest.contains("f /usr/local/bin/bookkeeper\n"), "the manifest names final paths, not the stage's:\n\(manifest)")
        XCTAssertFalse(manifest.contains(stage))

        // The staged binary finds its reports relative to itself, without a rebuild.
        let listed = try runInstalled(stage + "/usr/local/bin/bookkeeper", ["reports"], in: tmp.path)
        XCTAssertEqual(listed.status, 0, "\(listed)")
        XCTAssertTrue(listed.stdout.contains("unpaid-orders"), "\(listed)")

        let removed = try make(["uninstall", "DESTDIR=\(stage)", "PREFIX=/usr/local"])
        XCTAssertEqual(removed.status, 0, removed.output)
        XCTAssertEqual(tree(stage), ["usr", "usr/local", "usr/local/share", "usr/local/share/man", "usr/local/share/man/man1",
                                     "usr/local/share/man/man1/other.1"])
    }

    /// `bookkeeper reports`' lines of a report (name, then title), by name.
    func titles(_ listing: String) -> [String: String] {
        var titles: [String: String] = [:]
        for line in listing.split(separator: "\n") where !line.hasPrefix(" ") {
            let words = line.split(separator: " ", maxSplits: 1)
            if words.count == 2 { titles[String(words[0])] = words[1].trimmingCharacters(in: .whitespaces) }
        }
        return titles
    }

    /// The NEEDED entries of an ELF file's dynamic section, as `readelf -d` prints them.
    func neededLibraries(_ path: String) throws -> [String] {
        let r = try runTool(["/usr/bin/readelf", "-d", path])
        XCTAssertEqual(r.status, 0, r.error)
        let text = String(decoding: r.output, as: UTF8.self)
        return text.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }
}
