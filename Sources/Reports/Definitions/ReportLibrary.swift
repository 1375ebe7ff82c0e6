// Where definitions are found: directories of `NAME.yaml` files, searched in order; the first file of
// a name wins, so an operator's edited copy of a shipped report (same name, own directory) replaces it.
//
// The order: each `--reports DIR` as given, then the directories in `$BOOKKEEPER_REPORTS`
// (colon-separated), then the shipped `Reports/` beside the binary's project (found by walking up
// from the executable to a folder holding both `Package.swift` and `Reports/`).

import Foundation
import ObjectStore

public struct ReportLibrary: Sendable {
    /// One definition file found.
    public struct Entry: Sendable {
        public var name: String
        /// The path to read.
        public var path: String
        /// The path as messages show it (relative to the working directory when inside it).
        public var file: String
    }

    /// The directories searched, in order.
    public let directories: [String]
    /// Directories that must exist (the ones named on the command line).
    private let required: Set<String>

    public init(directories: [String], required: Set<String> = []) {
        self.directories = directories
        self.required = required
    }

    /// `extra` (from `--reports`), then `$BOOKKEEPER_REPORTS`, then the shipped `Reports/`.
    public static func standard(extra: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                                executablePath: String? = ReportLibrary.executablePath()) -> ReportLibrary {
        var directories = extra
        if let list = environment["BOOKKEEPER_REPORTS"] {
            directories += list.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        }
        if let shipped = executablePath.flatMap(shippedDirectory(executable:)) { directories.append(shipped) }
        var unique: [String] = []
        for d in directories where !unique.contains(d) { unique.append(d) }
        return ReportLibrary(directories: unique, required: Set(extra))
    }

    /// The running executable, symbolic links resolved.
    public static func executablePath() -> String? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return Bundle.main.executablePath
    }

    /// `Reports/` in the nearest folder above `executable` that holds `Package.swift` and `Reports/`.
    public static func shippedDirectory(executable: String) -> String? {
        var directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            let reports = directory.appendingPathComponent("Reports")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
               FileManager.default.fileExists(atPath: reports.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return reports.path
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Every definition, the first of each name, sorted by name.
    public func entries() throws -> [Entry] {
        var found: [String: Entry] = [:]
        for directory in directories {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                if required.contains(directory) {
                    throw ReportInputError("--reports \(directory): no such directory")
                }
                continue
            }
            let files: [String]
            do {
                files = try FileManager.default.contentsOfDirectory(atPath: directory)
            } catch {
                throw ReportInputError("\(directory): cannot list the directory", category: .io)
            }
            for file in files.sorted() where file.hasSuffix(".yaml") || file.hasSuffix(".yml") {
                guard !file.hasPrefix(".") else { continue }
                let name = file.hasSuffix(".yaml") ? String(file.dropLast(5)) : String(file.dropLast(4))
                guard found[name] == nil else { continue }
                let path = (directory as NSString).appendingPathComponent(file)
                found[name] = Entry(name: name, path: path, file: ReportLibrary.displayPath(path))
            }
        }
        return found.values.sorted { $0.name < $1.name }
    }

    /// The definition file of `name`; an unknown name is a usage error with a did-you-mean.
    public func entry(named name: String) throws -> Entry {
        let all = try entries()
        if let entry = all.first(where: { $0.name == name }) { return entry }
        let suggestion = Suggestions.closest(to: name, in: all.map(\.name))
        let looked = directories.isEmpty ? "no report directories" : directories.map(ReportLibrary.displayPath).joined(separator: ", ")
        throw ReportUsageError("unknown report \"\(name)\"\(Suggestions.didYouMean(suggestion)) (looked in \(looked); "
                               + "`bookkeeper reports` lists them)")
    }

    /// Reads the definition of `name`.
    public func definition(named name: String) throws -> ReportDefinition {
        let entry = try entry(named: name)
        return try ReportDefinition.load(path: entry.path, file: entry.file)
    }

    /// `path` relative to the working directory when it is inside it.
    public static func displayPath(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let absolute = path.hasPrefix("/") ? URL(fileURLWithPath: path).standardizedFileURL.path : path
        if cwd != "/", absolute.hasPrefix(cwd + "/") { return String(absolute.dropFirst(cwd.count + 1)) }
        return path
    }
}
