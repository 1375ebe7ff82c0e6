// Cell formats of a workbook: number formats per column format, and the styles of header, data and
// totals cells, each created once per workbook (libxlsxwriter keeps every format it is given until
// the workbook closes).

import CXLSXWriter

/// How a cell is drawn, independent of its value.
struct XLSXCellStyle: Hashable {
    enum Alignment: Hashable { case general, left, right, center }

    var bold = false
    var number: String?
    var alignment = Alignment.general
    var indent = false
    /// The column titles: filled and bordered.
    var header = false
    /// The totals row: a line above, a double line below.
    var totals = false
}

/// The formats of one workbook, created on first use.
final class XLSXFormats {
    private let workbook: UnsafeMutablePointer<lxw_workbook>
    private var cache: [XLSXCellStyle: UnsafeMutablePointer<lxw_format>] = [:]
    /// The header fill: a light grey that prints as grey on black-and-white printers too.
    static let headerFill: lxw_color_t = 0xD9D9D9

    init(workbook: UnsafeMutablePointer<lxw_workbook>) {
        self.workbook = workbook
    }

    /// The format for `style`; nil for the default style (libxlsxwriter's "no format").
    func format(_ style: XLSXCellStyle) -> UnsafeMutablePointer<lxw_format>? {
        if style == XLSXCellStyle() { return nil }
        if let cached = cache[style] { return cached }
        guard let created = workbook_add_format(workbook) else { return nil }
        if style.bold { format_set_bold(created) }
        if let number = style.number { format_set_num_format(created, number) }
        if style.indent { format_set_indent(created, 1) }
        switch style.alignment {
        case .general: break
        case .left: format_set_align(created, UInt8(LXW_ALIGN_LEFT.rawValue))
        case .right: format_set_align(created, UInt8(LXW_ALIGN_RIGHT.rawValue))
        case .center: format_set_align(created, UInt8(LXW_ALIGN_CENTER.rawValue))
        }
        if style.header {
            format_set_pattern(created, UInt8(LXW_PATTERN_SOLID.rawValue))
            format_set_bg_color(created, XLSXFormats.headerFill)
            format_set_border(created, UInt8(LXW_BORDER_THIN.rawValue))
        }
        if style.totals {
            format_set_top(created, UInt8(LXW_BORDER_THIN.rawValue))
            format_set_bottom(created, UInt8(LXW_BORDER_DOUBLE.rawValue))
        }
        cache[style] = created
        return created
    }

    /// The style of a column's title: aligned as the column's values are (numbers and dates — periods
    /// included — right, booleans centred, text left).
    static func headerStyle(for column: ReportColumn) -> XLSXCellStyle {
        XLSXCellStyle(bold: true, alignment: column.period == nil ? alignment(of: column.format) : .right, header: true)
    }

    /// How many distinct formats for weeks that begin in the year before their own (see `periodFormat`) a workbook
    /// may have: each is its own literal, and Excel keeps at most about 200 custom formats.
    static let maximumWeekFormats = 150
    private var weekFormats = 0

    /// The date format that shows `period`'s first day as the period: `mmm yyyy` (Mar 2026), `yyyy`,
    /// `"Q1 "yyyy` (Q1 2026), `yyyy"-W09"` (2026-W09). Excel has no code for ISO weeks, so the week number is
    /// a literal after the Monday's year; that year is the week's own except when week 1 begins on 29, 30 or 31
    /// December, which shows as `2026-W01 (29 Dec)`: the format must keep a date code for the cell to filter
    /// as a date. Past `maximumWeekFormats` of those, a week shows its Monday, `yyyy-mm-dd`.
    func periodFormat(_ period: ReportPeriod) -> UnsafeMutablePointer<lxw_format>? {
        format(XLSXCellStyle(number: periodNumberFormat(period)))
    }

    private func periodNumberFormat(_ period: ReportPeriod) -> String {
        switch period.unit {
        case .month: return "mmm yyyy"
        case .year: return "yyyy"
        case .quarter: return "\"Q\(period.firstDay.month / 3 + 1) \"yyyy"
        case .week:
            let (year, week) = period.isoWeek
            let number = (week < 10 ? "0" : "") + String(week)
            if year == period.firstDay.year { return "yyyy\"-W\(number)\"" }
            let literal = "\"\(period.text) (\"d mmm\")\""
            if cache[XLSXCellStyle(number: literal)] == nil {
                guard weekFormats < XLSXFormats.maximumWeekFormats else { return "yyyy-mm-dd" }
                weekFormats += 1
            }
            return literal
        }
    }

    /// The number format a chart axis over period categories can use (one for every category): months and years.
    static func periodAxisFormat(_ unit: ReportPeriodUnit) -> String? {
        switch unit {
        case .month: return "mmm yyyy"
        case .year: return "yyyy"
        case .quarter, .week: return nil
        }
    }

    static func alignment(of format: ColumnFormat) -> XLSXCellStyle.Alignment {
        switch format {
        case .integer, .number, .money, .percent, .date, .dateTime: return .right
        case .boolean: return .center
        case .text, .code: return .left
        }
    }

    /// The Excel number format for a numeric column's values (`scale` nil for doubles): money in an
    /// accounting layout whose negatives are told apart as the report asks, with positives padded by
    /// the width of `)` so the decimal points line up in every style; counts and other numbers with
    /// thousands separators.
    static func numberFormat(_ format: ColumnFormat, scale: Int?, negative: NegativeStyle = .minus) -> String? {
        func decimals(_ count: Int, grouped: Bool) -> String {
            let count = min(max(count, 0), 30)
            let whole = grouped ? "#,##0" : "0"
            return count == 0 ? whole : whole + "." + String(repeating: "0", count: count)
        }
        switch format {
        case .money:
            switch negative {
            case .minus: return "#,##0.00_);-#,##0.00_)"
            case .red: return "#,##0.00_);[Red]-#,##0.00_)"
            case .parentheses: return "#,##0.00_);(#,##0.00)"
            }
        case .integer: return decimals(scale ?? 0, grouped: true)
        case .number: return scale.map { decimals($0, grouped: true) }
        case .percent: return decimals(scale.map { $0 - 2 } ?? 1, grouped: false) + "%"
        case .text, .code, .date, .dateTime, .boolean: return nil
        }
    }
}
