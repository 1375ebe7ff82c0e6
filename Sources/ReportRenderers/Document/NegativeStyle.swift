// How negative money is told apart in a workbook (`negative:` in a report definition).
//
// Accountants differ: some read a minus sign, some want losses in red, some in parentheses. The
// choice is per report and applies to XLSX money cells; text, CSV and JSON always write a minus.

/// How negative amounts look in XLSX money cells.
package enum NegativeStyle: String, Sendable, Hashable, CaseIterable {
    /// `-1,234.50` (the default).
    case minus
    /// `-1,234.50` in red.
    case red
    /// `(1,234.50)`.
    case parentheses
}
