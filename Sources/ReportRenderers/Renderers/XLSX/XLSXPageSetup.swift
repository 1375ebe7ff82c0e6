// Page set-up, so that a sheet prints well with nothing set by the user: portrait, or landscape when
// the table is wider than a portrait page; one page wide and as many tall as needed; the header row
// on every page; a print header with the report's title and parameters; a footer with
// "Page N of M" and when the report was generated.
//
// Widths are judged in Excel's pixels at 96 dpi against the narrower of A4 and US Letter (the paper
// is the printer's), inside libxlsxwriter's default margins of 0.7 inch. A table so wide that one
// page would print it below 60% of its size is not squeezed: it prints at 60% over several pages
// wide, the header row still repeated, rather than at a size nobody can read.

import CXLSXWriter

struct XLSXPageSetup {
    /// Printable width of a portrait page: 8.27 in (A4) less two 0.7 in margins, at 96 px per inch.
    static let portraitPixels = 659.0
    /// Printable width of a landscape page: 11 in (Letter) less the margins.
    static let landscapePixels = 921.0
    /// Printable height of a portrait page: 11 in (Letter) less two 0.75 in margins.
    static let portraitHeightPixels = 912.0
    /// Printable height of a landscape page: 8.27 in (A4) less the margins.
    static let landscapeHeightPixels = 650.0
    /// The smallest print scale allowed by fitting the table to the page width.
    static let minimumScale = 0.6
    /// libxlsxwriter's default row height (15 points).
    static let rowPixels = 20.0
    /// A print header or footer holds at most 255 characters (libxlsxwriter refuses more).
    static let maximumHeaderLength = 255

    /// Excel's pixel width of a column `width` characters wide (Calibri 11: 7 px per character plus 5 px of
    /// padding).
    static func pixels(ofWidth width: Double) -> Double {
        width < 1 ? (width * 12).rounded() : (width * 7).rounded() + 5
    }

    let landscape: Bool
    /// Whether the sheet is fitted to one page wide (else printed at `minimumScale`).
    let fitsOneWide: Bool
    let pageWidthPixels: Double
    let pageHeightPixels: Double

    /// The layout for a table `tableWidth` pixels wide.
    init(tableWidth: Double) {
        landscape = tableWidth > XLSXPageSetup.portraitPixels
        pageWidthPixels = landscape ? XLSXPageSetup.landscapePixels : XLSXPageSetup.portraitPixels
        pageHeightPixels = landscape ? XLSXPageSetup.landscapeHeightPixels : XLSXPageSetup.portraitHeightPixels
        fitsOneWide = tableWidth * XLSXPageSetup.minimumScale <= pageWidthPixels
    }

    /// The scale a page prints at when the used width is `usedWidth` pixels.
    func scale(forWidth usedWidth: Double) -> Double {
        guard fitsOneWide, usedWidth > pageWidthPixels else { return fitsOneWide ? 1 : XLSXPageSetup.minimumScale }
        return pageWidthPixels / usedWidth
    }

    /// Applies the layout, the repeated header row (`repeatHeader`) and the print header and footer.
    func apply(to sheet: UnsafeMutablePointer<lxw_worksheet>, writer: XLSXCellWriter, repeatHeader: Bool,
               title: String, parameters: [(name: String, value: String)], generated: String) throws {
        if landscape { worksheet_set_landscape(sheet) } else { worksheet_set_portrait(sheet) }
        if fitsOneWide {
            worksheet_fit_to_pages(sheet, 1, 0)
        } else {
            worksheet_set_print_scale(sheet, UInt16(XLSXPageSetup.minimumScale * 100))
        }
        if repeatHeader {
            try writer.check(worksheet_repeat_rows(sheet, 0, 0), "repeat the header row on every page")
        }
        try writer.check(worksheet_set_header(sheet, XLSXPageSetup.header(title: title, parameters: parameters)),
                         "set the print header")
        try writer.check(worksheet_set_footer(sheet, XLSXPageSetup.footer(generated: generated)), "set the print footer")
    }

    /// `&L&"-,Bold"Title&RFrom: 2026-10-01   To: 2026-10-31`, cut to fit 255 characters.
    static func header(title: String, parameters: [(name: String, value: String)]) -> String {
        let bold = "&L&\"-,Bold\""
        let right = parameters.isEmpty ? "" : "&R" + escaped(parameters.map { "\($0.name): \($0.value)" }.joined(separator: "   "))
        let room = maximumHeaderLength - bold.count
        let left = cut(escaped(title), to: min(room, max(room - right.count, room / 2)))
        return bold + left + cut(right, to: room - left.count)
    }

    /// `&LPage &P of &N&RGenerated 2026-11-21 00:00 UTC`.
    static func footer(generated: String) -> String {
        cut("&LPage &P of &N&RGenerated " + escaped(generated), to: maximumHeaderLength)
    }

    /// `&` starts a control code in headers and footers; a literal one is doubled. Line breaks and tabs
    /// become spaces (a taller header would overlap the page), other control characters `?` (XML cannot
    /// hold them; XLSXText.swift).
    static func escaped(_ text: String) -> String {
        XLSXText.singleLine(text).replacingOccurrences(of: "&", with: "&&")
    }

    /// At most `limit` characters, never ending inside a `&&`.
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        guard limit > 0 else { return "" }
        var result = String(text.prefix(limit - 1)) + "…"
        // An odd run of trailing `&` would escape the ellipsis.
        var ampersands = 0
        for character in result.dropLast().reversed() {
            guard character == "&" else { break }
            ampersands += 1
        }
        if ampersands % 2 == 1 { result = String(result.dropLast(2)) + "…" }
        return result
    }
}
