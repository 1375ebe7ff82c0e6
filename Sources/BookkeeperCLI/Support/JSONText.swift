import ReportRenderers

/// JSON strings, escaped by the JSON report renderer's own escaper, so every JSON the tool writes escapes alike.
/// (Values in JSON go through the renderers' rules too: CellFormatter.json.)
enum JSONText {
    static func string(_ s: String) -> String { JSONString.quoted(s) }
}
