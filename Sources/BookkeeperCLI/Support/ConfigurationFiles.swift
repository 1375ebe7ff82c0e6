// The configuration files no output may replace, registered before any work.
//
// Why this file exists: the output guard (FileOutput's ProtectedFiles) knew the store, the input and the one
// report being run, so `report tags --reports defs --output defs/customers.yaml` replaced another report's
// definition, and `export Customer Reports/x.yaml` a shipped one. Every file bookkeeper reads as configuration is
// registered here, for every command, before standard output is checked and before any output is resolved:
// the model files (--model, $BOOKKEEPER_MODEL, model.yaml beside the store, even before it exists), each folder searched for report
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
        let models = [options.model, ProcessInfo.processInfo.environment["BOOKKEEPER_MODEL"]].compactMap { $0 }
        for path in models where !path.isEmpty && FileManager.default.fileExists(atPath: path) {
            ProtectedFiles.protect(path, as: "the model file")
        }
        protectDefaultModel(storePath: options.storePath)
        let reads = command as? any ReadsFiles
        for (path, role) in reads?.filesRead ?? [] { ProtectedFiles.protect(path, as: role) }
        for folder in ReportLibrary.standard(extra: reads?.reportFolders ?? []).directories {
            ProtectedFiles.protectFolder(folder, suffixes: [".yaml", ".yml"], as: definitionRole, folderRole: "the report folder")
        }
    }
}

extension ConfigurationFiles {
    /// `model.yaml` beside the store is the model file of every run without --model or $BOOKKEEPER_MODEL, whether
    /// it exists yet or not. Seen (attack 27, finding 1): `export Customer model.yaml` (or a report, a backup, an
    /// import's rejects) made it, exit 0, and every later command failed with 78 reading the CSV as the model.
    /// Through a link to nothing, the file it points to is protected too: it is what the next run would read.
    static func protectDefaultModel(storePath: String) {
        let beside = URL(fileURLWithPath: storePath).deletingLastPathComponent().appendingPathComponent("model.yaml").path
        guard !FileManager.default.fileExists(atPath: beside) else {
            ProtectedFiles.protect(beside, as: "the model file")
            return
        }
        let place = "beside the store \(storePath)"
        ProtectedFiles.protectNew(beside, as: "the model file", place: place)
        if var target = try? FileManager.default.destinationOfSymbolicLink(atPath: beside) {
            if !target.hasPrefix("/") { target = URL(fileURLWithPath: beside).deletingLastPathComponent().appendingPathComponent(target).path }
            ProtectedFiles.protectNew(target, as: "the model file", place: place)
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
