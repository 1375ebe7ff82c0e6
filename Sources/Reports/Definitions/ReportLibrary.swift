// Where definitions are found: directories of `NAME.yaml` files, searched in order; the first file of
// a name wins, so an operator's edited copy of a shipped report (same name, own directory) replaces it.
//
// The order: each `--reports DIR` as given, then the directories in `$BOOKKEEPER_REPORTS`
// (colon-separated), then the shipped definitions: `../share/bookkeeper/reports` beside an installed
// executable (relative, so a DESTDIR or a moved prefix needs no rebuild), else `Reports/` of the checkout
// a built executable lives in (found by walking up to a folder holding both `Package.swift` and `Reports/`).

import Foundation
import ObjectStore

package struct ReportLibrary: Sendable {
    /// One definition file found.
    package struct Entry: Sendable {
        package var name: String
        /// The path to read.
        package var path: String
        /// The path as messages show it (relative to the working directory when inside it).
        package var file: String
    }

    /// The directories searched, in order.
    package let directories: [String]
    /// Directories that must exist (the ones named on the command line).
    private let required: Set<String>

    package init(directories: [String], required: Set<String> = []) {
        self.directories = directories
        self.required = required
    }

    /// `extra` (from `--reports`), then `$BOOKKEEPER_REPORTS`, then the shipped `Reports/`.
    package static func standard(extra: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
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
    package static func executablePath() -> String? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        return Bundle.main.executablePath
    }

    /// Where an installed executable's definitions go, relative to the folder it is in (`make install`).
    package static let installedRelativePath = "../share/bookkeeper/reports"

    /// `../share/bookkeeper/reports` beside an installed `executable`, else `Reports/` in the nearest folder
    /// above it that holds `Package.swift` and `Reports/` (a build in a checkout).
    package static func shippedDirectory(executable: String) -> String? {
        let binDirectory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        let installed = binDirectory.appendingPathComponent(installedRelativePath).standardizedFileURL
        if isDirectory(installed.path) { return installed.path }
        var directory = binDirectory
        while directory.path != "/" {
            let reports = directory.appendingPathComponent("Reports")
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
               isDirectory(reports.path) {
                return reports.path
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Every definition, the first of each name, sorted by name.
    package func entries() throws -> [Entry] {
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

    /// The directories searched, as messages name them.
    package var searched: String {
        guard !directories.isEmpty else {
            return "no report directories: give --reports DIR or $BOOKKEEPER_REPORTS, or install the shipped ones "
                + "in \(ReportLibrary.installedRelativePath) beside the executable"
        }
        return "looked in " + directories.map(ReportLibrary.displayPath).joined(separator: ", ")
    }

    /// The definition file of `name`; an unknown name is a usage error with a did-you-mean.
    package func entry(named name: String) throws -> Entry {
        let all = try entries()
        if let entry = all.first(where: { $0.name == name }) { return entry }
        let suggestion = Suggestions.closest(to: name, in: all.map(\.name))
        throw ReportUsageError("unknown report \"\(name)\"\(Suggestions.didYouMean(suggestion)) (\(searched); "
                               + "`bookkeeper reports` lists them)")
    }

    /// Reads the definition of `name`.
    package func definition(named name: String) throws -> ReportDefinition {
        let entry = try entry(named: name)
        return try ReportDefinition.load(path: entry.path, file: entry.file)
    }

    /// `path` relative to the working directory when it is inside it.
    package static func displayPath(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let absolute = path.hasPrefix("/") ? URL(fileURLWithPath: path).standardizedFileURL.path : path
        if cwd != "/", absolute.hasPrefix(cwd + "/") { return String(absolute.dropFirst(cwd.count + 1)) }
        return path
    }
}
