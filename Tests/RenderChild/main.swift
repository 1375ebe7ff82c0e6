// The child process of two renderer tests (Tests/ReportRenderersTests): what a test process cannot do to itself —
// be killed by a signal in the middle of a render, or measure its own peak memory for one render only. It is a
// program of its own, not a test, so the suite has no test that only ever skips.
//
//   render-child interrupted FORMAT FOLDER   renders a row of a report to FOLDER/report, says READY, then waits
//                                            inside the row source until a signal ends it
//   render-child memory ROWS FOLDER          renders ROWS generated rows to FOLDER/big.xlsx and prints
//                                            `XLSX rows=… peakRSS=…KiB seconds=… rows/s=…`

import Foundation
import LocalTime
import ReportRenderers
#if canImport(Glibc)
import Glibc
#endif

/// Writes a line to standard output at once (print is buffered when stdout is a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let generatedAt = Date(timeIntervalSince1970: 1_795_294_800)
let utc = Zone.utc
let arguments = CommandLine.arguments

switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
case (4, "interrupted"):
    guard let format = ReportFormat(rawValue: arguments[2]) else { fatalError("render-child: no format \(arguments[2])") }
    struct Stalling: ReportRowSource {
        var given = 0
        var rowCount: Int? { 3 }
        mutating func nextRow() throws -> [ReportCell]? {
            given += 1
            if given == 2 {
                say("READY")
                while true { pause() }
            }
            return [.text("A-1"), .text("Acme Ltd"), .date(year: 2026, month: 10, day: 1), .decimal(units: 123_450, scale: 2), .boolean(false)]
        }
    }
    let document = ReportDocument(
        name: "unpaid-orders", title: "Unpaid orders", generatedAt: generatedAt, timeZone: utc,
        columns: [ReportColumn(title: "Number", format: .code), ReportColumn(title: "Customer"), ReportColumn(title: "Due", format: .date),
                  ReportColumn(title: "Amount", format: .money, total: true), ReportColumn(title: "Paid", format: .boolean)])
    var rows = Stalling()
    try format.renderer().render(document, rows: &rows, to: .file(path: arguments[3] + "/report"))
    fatalError("render-child: the render ended without a signal")

case (4, "memory"):
    guard let count = Int(arguments[2]) else { fatalError("render-child: not a row count: \(arguments[2])") }
    struct Generated: ReportRowSource {
        let total: Int
        var rowCount: Int? { nil }      // as the store's rows: not counted up front
        var index = 0
        mutating func nextRow() throws -> [ReportCell]? {
            guard index < total else { return nil }
            index += 1
            return [.text("N\(index)"), .text("Customer \(index % 977)"), .date(year: 2026, month: index % 12 + 1, day: index % 28 + 1),
                    .decimal(units: Int128(index) * 137, scale: 2), .integer(Int64(index)), .boolean(index % 2 == 0)]
        }
    }
    let document = ReportDocument(
        name: "big", title: "Big", generatedAt: generatedAt, timeZone: utc,
        columns: [ReportColumn(title: "Number", format: .code), ReportColumn(title: "Customer"),
                  ReportColumn(title: "Due", format: .date), ReportColumn(title: "Amount", format: .money, total: true),
                  ReportColumn(title: "Count", format: .integer, total: true), ReportColumn(title: "Paid", format: .boolean)])
    var rows = Generated(total: count)
    let start = Date()
    try XLSXRenderer().render(document, rows: &rows, to: .file(path: arguments[3] + "/big.xlsx"))
    let seconds = Date().timeIntervalSince(start)
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    say("XLSX rows=\(count) peakRSS=\(usage.ru_maxrss)KiB seconds=\(String(format: "%.2f", seconds)) rows/s=\(Int(Double(count) / seconds))")

default:
    FileHandle.standardError.write(Data("usage: render-child interrupted FORMAT FOLDER | memory ROWS FOLDER\n".utf8))
    exit(64)
}
