// The About sheet: for every report of the workbook its title, sheet, description, parameters,
// sort, generation time with its zone and row count — and the cells a spreadsheet cannot show
// exactly (more than 15 significant digits), with their exact values, and the text cells cut to a
// cell's 32,767 characters, with their whole lengths, so none is rounded or cut silently; dates written
// as text (before 1900-03-01, or after 9999); and a chart written without cached data, which some viewers
// show empty.

import CXLSXWriter

struct XLSXAboutSheet {
    let sheet: UnsafeMutablePointer<lxw_worksheet>
    let formats: XLSXFormats
    let writer: XLSXCellWriter

    func write(_ reports: [XLSXSheetSummary], title: String, generated: String) throws {
        let bold = formats.format(XLSXCellStyle(bold: true))
        let indented = formats.format(XLSXCellStyle(indent: true))
        var row = 0
        var widest = 20
        func line(_ label: String, _ value: String, labelFormat: UnsafeMutablePointer<lxw_format>? = bold,
                  valueFormat: UnsafeMutablePointer<lxw_format>? = nil) throws {
            try writer.string(label, row: row, column: 0, format: labelFormat)
            try writer.string(XLSXAboutSheet.fitted(value), row: row, column: 1, format: valueFormat)
            widest = max(widest, TerminalText.width(value) + 2)
            row += 1
        }
        for (i, report) in reports.enumerated() {
            if i > 0 { row += 1 }
            let document = report.document
            try line("Title", document.title, valueFormat: bold)
            try line("Sheet", report.sheet)
            if let description = document.description { try line("Description", description) }
            if !document.parameters.isEmpty {
                try writer.string("Parameters", row: row, column: 0, format: bold)
                row += 1
                for parameter in document.parameters {
                    try line(parameter.name, parameter.value, labelFormat: indented)
                }
            }
            if let sort = document.sortDescription { try line("Sort", sort) }
            try line("Generated", XLSXWorkbook.generatedText(document))
            try writer.string("Rows", row: row, column: 0, format: bold)
            try writer.number(Double(report.rowCount), row: row, column: 1,
                              format: formats.format(XLSXCellStyle(number: "0", alignment: .left)))
            row += 1
            if let limit = report.chartWithoutCacheOver {
                try line("Chart", "drawn from the sheet's cells, without cached data (more than "
                         + "\(XLSXAboutSheet.thousands(limit)) rows): Excel and LibreOffice show it, "
                         + "a viewer that does not recalculate shows it empty")
            }
            if report.inexactCount > 0 {
                try line("Not exact", "\(report.inexactCount) \(report.inexactCount == 1 ? "amount has" : "amounts have") more "
                         + "than 15 significant digits, which a spreadsheet rounds; the exact values:")
                for cell in report.inexact {
                    try line(cell.reference, cell.exact, labelFormat: indented)
                }
                if report.inexactCount > report.inexact.count {
                    try line("", "and \(report.inexactCount - report.inexact.count) more (the CSV and JSON outputs are exact)",
                             labelFormat: indented)
                }
            }
            if report.textNumberCount > 0 {
                let n = report.textNumberCount
                try line("Numbers as text", "\(XLSXAboutSheet.thousands(n)) \(n == 1 ? "number is" : "numbers are") written as text, first in "
                         + "\(report.firstTextNumber ?? "?"): so near the largest a double holds (±1.7976931348623157e+308) that, written "
                         + "as a number to 16 digits, a spreadsheet would open \(n == 1 ? "it" : "them") as infinity")
            }
            if report.textDateCount > 0 {
                let n = report.textDateCount
                try line("Dates as text", "\(XLSXAboutSheet.thousands(n)) \(n == 1 ? "date is" : "dates are") before 1900-03-01 (or after 9999) "
                         + "and written as text (YYYY-MM-DD), first in \(report.firstTextDate ?? "?"): spreadsheets count days from 1900, "
                         + "and LibreOffice reads January and February 1900 a day early")
            }
            if report.shortenedCount > 0 {
                try line("Shortened", "\(report.shortenedCount) \(report.shortenedCount == 1 ? "text was" : "texts were") longer than "
                         + "a cell holds and \(report.shortenedCount == 1 ? "was" : "were") cut to \(XLSXAboutSheet.maximumText) characters:")
                for cell in report.shortened {
                    try line(cell.reference, "\(XLSXAboutSheet.thousands(cell.length)) characters", labelFormat: indented)
                }
                if report.shortenedCount > report.shortened.count {
                    try line("", "and \(report.shortenedCount - report.shortened.count) more (the CSV and JSON outputs are whole)",
                             labelFormat: indented)
                }
            }
        }
        try writer.check(worksheet_set_column(sheet, 0, 0, 16, nil), "set the column widths")
        let valueWidth = Double(min(widest, 100))
        try writer.check(worksheet_set_column(sheet, 1, 1, valueWidth, nil), "set the column widths")
        let layout = XLSXPageSetup(tableWidth: XLSXPageSetup.pixels(ofWidth: 16) + XLSXPageSetup.pixels(ofWidth: valueWidth))
        try layout.apply(to: sheet, writer: writer, repeatHeader: false, title: title, parameters: [],
                         generated: generated)
    }

    static let maximumText = thousands(XLSXWorkbook.maximumStringLength)

    /// `32,767`
    static func thousands(_ n: Int) -> String {
        let digits = Array(String(n))
        var result = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }

    /// A title, description or parameter too long for a cell, cut so that the cell says it was (a report's own cells
    /// are listed under `Shortened` instead).
    static func fitted(_ value: String) -> String {
        guard value.utf16.count > XLSXWorkbook.maximumStringLength else { return value }
        let marker = "… (cut: \(thousands(value.count)) characters in all)"
        var kept = ""
        var length = marker.utf16.count
        for character in value {
            length += character.utf16.count
            if length > XLSXWorkbook.maximumStringLength { break }
            kept.append(character)
        }
        return kept + marker
    }
}
