// Writing cells of one worksheet: libxlsxwriter's error codes become `ReportRenderError`s, text is
// made safe for Excel (length, NUL, OOXML escapes, characters XML forbids), and numbers beyond what a
// spreadsheet holds exactly and text cut to a cell's length are noted.

import CXLSXWriter
import ValueText

/// Writes cells of one worksheet.
struct XLSXCellWriter {
    let sheet: UnsafeMutablePointer<lxw_worksheet>
    let file: String

    func check(_ result: lxw_error, _ operation: @autoclosure () -> String) throws {
        guard result != LXW_NO_ERROR else { return }
        throw ReportRenderError(file: file, kind: .xlsx(operation: operation(), message: String(cString: lxw_strerror(result))))
    }

    /// Writes `text` as Excel will show it (`excelText`); returns whether it was cut to Excel's 32,767
    /// characters, so that the caller can say so.
    @discardableResult
    func string(_ text: String, row: Int, column: Int, format: UnsafeMutablePointer<lxw_format>?) throws -> Bool {
        let written = XLSXCellWriter.excelText(text)
        try check(worksheet_write_string(sheet, lxw_row_t(row), lxw_col_t(column), written.text, format),
                  "write row \(row)")
        return written.cut
    }

    func number(_ value: Double, row: Int, column: Int, format: UnsafeMutablePointer<lxw_format>?) throws {
        try check(worksheet_write_number(sheet, lxw_row_t(row), lxw_col_t(column), value, format), "write row \(row)")
    }

    func blank(row: Int, column: Int, format: UnsafeMutablePointer<lxw_format>?) throws {
        try check(worksheet_write_blank(sheet, lxw_row_t(row), lxw_col_t(column), format), "write row \(row)")
    }

    /// Text as Excel will show it as written: cut to Excel's 32,767 characters (`cut` says so), NUL
    /// replaced (the C API ends strings there), OOXML escapes kept literal, and U+FFFE, U+FFFF — which
    /// XML cannot hold and libxlsxwriter writes raw — written as the escapes `_xFFFE_`, `_xFFFF_`.
    static func excelText(_ text: String) -> (text: String, cut: Bool) {
        // Most cells are short printable ASCII without an underscore: nothing to cut, replace or escape, in one pass
        // (the four below each walk the text).
        if text.utf8.count <= XLSXWorkbook.maximumStringLength,
           text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "_") }) {
            return (text, false)
        }
        var text = text
        var cut = false
        if text.utf8.count > XLSXWorkbook.maximumStringLength {
            // Excel's limit counts UTF-16 units; cut at a character boundary.
            var length = 0
            var end = text.startIndex
            for index in text.indices {
                let units = text[index].utf16.count
                if length + units > XLSXWorkbook.maximumStringLength { break }
                length += units
                end = text.index(after: index)
            }
            cut = end < text.endIndex
            text = String(text[..<end])
        }
        if text.utf8.contains(0) { text = text.replacingOccurrences(of: "\0", with: "\u{FFFD}") }
        text = escapingOOXML(text)
        // U+FFFE and U+FFFF are EF BF BE and EF BF BF in UTF-8.
        if text.unicodeScalars.contains(where: { $0.value == 0xFFFE || $0.value == 0xFFFF }) {
            text = text.replacingOccurrences(of: "\u{FFFE}", with: "_xFFFE_").replacingOccurrences(of: "\u{FFFF}", with: "_xFFFF_")
        }
        return (text, cut)
    }

    /// Excel reads `_xHHHH_` in cell text as the character U+HHHH, so `_x0041_` would show as `A`;
    /// the underscore that starts such a sequence is itself written escaped (`_x005F_`), as Excel
    /// does when it saves. libxlsxwriter 1.1.4 leaves this to its caller.
    static func escapingOOXML(_ text: String) -> String {
        // Most text has no underscore: it is looked for before anything is copied.
        guard text.utf8.count >= 7, text.utf8.contains(UInt8(ascii: "_")) else { return text }
        let bytes = Array(text.utf8)
        func isHex(_ b: UInt8) -> Bool {
            (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
        }
        var result: [UInt8] = []
        var i = 0
        var changed = false
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "_"), i + 6 < bytes.count, bytes[i + 1] == UInt8(ascii: "x") || bytes[i + 1] == UInt8(ascii: "X"),
               isHex(bytes[i + 2]), isHex(bytes[i + 3]), isHex(bytes[i + 4]), isHex(bytes[i + 5]), bytes[i + 6] == UInt8(ascii: "_") {
                result.append(contentsOf: Array("_x005F".utf8))
                changed = true
            }
            result.append(bytes[i])
            i += 1
        }
        return changed ? String(decoding: result, as: UTF8.self) : text
    }
}

/// A number a spreadsheet cannot show exactly (more than 15 significant digits), listed on the
/// About sheet instead of being rounded silently.
struct XLSXInexactCell: Sendable, Hashable {
    /// `C2`
    var reference: String
    /// The exact value, as the CSV and JSON outputs write it.
    var exact: String

    /// Excel keeps 15 significant decimal digits.
    static let significantDigits = 15

    /// Whether `number` has more significant digits than a spreadsheet keeps.
    static func isInexact(_ number: DecimalText) -> Bool {
        let digits = number.digits.drop { $0 == UInt8(ascii: "0") }
        let significant = digits.reversed().drop { $0 == UInt8(ascii: "0") }
        return significant.count > significantDigits
    }
}

/// A text cell cut to Excel's 32,767 characters, listed on the About sheet instead of being cut silently.
struct XLSXShortenedCell: Sendable, Hashable {
    /// `B2`
    var reference: String
    /// The whole text's length in characters.
    var length: Int
}
