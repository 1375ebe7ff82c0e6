// The configuration files no output may replace, registered before any work.
//
// Why this file exists: the output guard (FileOutput's ProtectedFiles) knew the store, the input and the one
// report being run, so `report tags --reports defs --output defs/customers.yaml` replaced another report's
// definition, and `export Customer Reports/x.yaml` a shipped one. Every file bookkeeper reads as configuration is
// registered here, for every command, before standard output is checked and before any output is resolved:
// the model files (--model, $BOOKKEEPER_MODEL, model.yaml beside the store), each folder searched for report
// definitions (every definition in it, and any new NAME.yaml there), and what the command itself reads
// (an import's profile and input, a report definition named by its path).

import ArgumentParser
import FileOutput
import Foundation
import Reports

/// A command that reads files of its own: they are protected from every output before it runs.
protocol ReadsFiles {
    /// The files it reads, each with what it is for messages ("the import profile").
    var filesRead: [(path: String, role: String)] { get }
    /// The folders it searches for report definitions besides $BOOKKEEPER_REPORTS and the shipped ones.
    var reportFolders: [String] { get }
}

extension ReadsFiles {
    var filesRead: [(path: String, role: String)] { [] }
    var reportFolders: [String] { [] }
}

enum ConfigurationFiles {
    /// What a report definition is called in messages.
    static let definitionRole = "a report definition"

    /// Registers every configuration file `command`, run with `options`, reads or may read.
    static func protect(_ options: GlobalOptions, command: any ParsableCommand) {
        // Every model file that one run or another would read for this store, not only the one this run reads.
        var models = [options.model, ProcessInfo.processInfo.environment["BOOKKEEPER_MODEL"]].compactMap { $0 }
        models.append(URL(fileURLWithPath: options.storePath).deletingLastPathComponent().appendingPathComponent("model.yaml").path)
        for path in models where !path.isEmpty && FileManager.default.fileExists(atPath: path) {
            ProtectedFiles.protect(path, as: "the model file")
        }
        let reads = command as? any ReadsFiles
        for (path, role) in reads?.filesRead ?? [] { ProtectedFiles.protect(path, as: role) }
        for folder in ReportLibrary.standard(extra: reads?.reportFolders ?? []).directories {
            ProtectedFiles.protectFolder(folder, suffixes: [".yaml", ".yml"], as: definitionRole, folderRole: "the report folder")
        }
    }
}

extension Import: ReadsFiles {
    var filesRead: [(path: String, role: String)] {
        [(file, "the input being imported")] + [profile.map { ($0, "the import profile") },
                                                acceptRejects.map { ($0, "the accepted rejects file (--accept-rejects)") }].compactMap { $0 }
    }
}

extension ReportCommand: ReadsFiles {
    var filesRead: [(path: String, role: String)] {
        guard let name, ReportDirectoryOptions.isPath(name) else { return [] }
        return [(name, ConfigurationFiles.definitionRole)]
    }
    var reportFolders: [String] { definitions.directories }
}

extension ReportsCommand: ReadsFiles {
    var reportFolders: [String] { definitions.directories }
}
