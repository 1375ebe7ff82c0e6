// Reads an XLSX file back with an independent implementation: openpyxl, under Debian's /usr/bin/python3
// (python3-openpyxl; the `python3` first on PATH may be another build without it). It describes the workbook
// as JSON — sheets, cells (type, value, cached value of formulas, number format, bold), frozen pane,
// autofilter, column widths, charts, ignored errors, document properties. Used by the renderer and the
// report tests alike.

import Foundation
import XCTest

public struct OpenpyxlWorkbook {
    public let json: [String: Any]

    public static let python = "/usr/bin/python3"

    static let script = #"""
    import datetime, html, json, re, sys, zipfile
    import openpyxl

    path = sys.argv[1]
    formulas = openpyxl.load_workbook(path)
    values = openpyxl.load_workbook(path, data_only=True)

    def plain(value):
        if isinstance(value, (datetime.datetime, datetime.date)):
            return value.isoformat()
        return value

    def text_of(title):
        if title is None or title.tx is None or title.tx.rich is None:
            return None
        return "".join(run.t for p in title.tx.rich.p for run in (p.r or []))

    def ref(data):
        if data is None:
            return None
        for attr in ("numRef", "strRef"):
            r = getattr(data, attr, None)
            if r is not None:
                return r.f
        return None

    archive = zipfile.ZipFile(path)
    result = {"sheets": formulas.sheetnames, "properties": {}, "worksheets": {}}
    props = formulas.properties
    result["properties"] = {
        "title": props.title, "subject": props.subject, "comments": props.description,
        "created": props.created.isoformat() if props.created else None,
    }
    for index, ws in enumerate(formulas.worksheets):
        wsv = values[ws.title]
        cells = {}
        blank_borders = {}
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is None:
                    if cell.has_style and cell.border is not None and cell.border.bottom.style:
                        blank_borders[cell.coordinate] = [cell.border.top.style, cell.border.bottom.style]
                    continue
                cells[cell.coordinate] = {
                    "type": type(cell.value).__name__,
                    "value": plain(cell.value),
                    "cached": plain(wsv[cell.coordinate].value),
                    "format": cell.number_format,
                    "bold": bool(cell.font and cell.font.b),
                    "fill": cell.fill.fgColor.rgb if cell.fill is not None and cell.fill.fill_type == "solid" else None,
                    "border": [cell.border.top.style, cell.border.bottom.style] if cell.border is not None else [None, None],
                    "align": cell.alignment.horizontal if cell.alignment is not None else None,
                    "red": "[Red]" in (cell.number_format or ""),
                }
        def cache(data):
            if data is None:
                return None
            for attr, kind in (("numRef", "numCache"), ("strRef", "strCache")):
                r = getattr(data, attr, None)
                if r is not None:
                    c = getattr(r, kind, None)
                    if c is None:
                        return None
                    return [p.v for p in c.pt]
            return None

        def anchor(chart):
            marker = getattr(chart.anchor, "_from", None)
            return [marker.row, marker.col] if marker is not None else None

        def axis_format(axis):
            fmt = getattr(axis, "numFmt", None) if axis is not None else None
            return fmt.formatCode if fmt is not None else None

        charts = []
        for chart in ws._charts:
            charts.append({
                "legend": chart.legend is not None,
                "anchor": anchor(chart),
                "valueAxisFormat": axis_format(getattr(chart, "y_axis", None)) if chart.tagname != "pieChart" else None,
                "categoryAxisFormat": axis_format(getattr(chart, "x_axis", None)) if chart.tagname != "pieChart" else None,
                "categoryRotation": (chart.x_axis.txPr.bodyPr.rot if chart.tagname != "pieChart" and chart.x_axis.txPr is not None
                                     and chart.x_axis.txPr.bodyPr is not None else None),
                "caches": [{"categories": cache(s.cat), "values": cache(s.val)} for s in chart.series],
                "type": chart.tagname,
                "barDir": getattr(chart, "barDir", None),
                "title": text_of(chart.title),
                "series": [{"categories": ref(s.cat), "values": ref(s.val),
                            "name": s.tx.strRef.f if s.tx is not None and s.tx.strRef is not None else None}
                           for s in chart.series],
            })
        xml = archive.read("xl/worksheets/sheet%d.xml" % (index + 1)).decode("utf-8")
        ignored = re.findall(r"<ignoredError [^>]*>", xml)
        def part(tag):
            found = re.search(r"<%s>(.*?)</%s>" % (tag, tag), xml, re.S)
            return html.unescape(found.group(1)) if found else None
        fit = ws.sheet_properties.pageSetUpPr
        result["worksheets"][ws.title] = {
            "freeze": ws.freeze_panes,
            "autofilter": ws.auto_filter.ref,
            "maxRow": ws.max_row,
            "widths": {letter: dim.width for letter, dim in ws.column_dimensions.items() if dim.width},
            "cells": cells,
            "charts": charts,
            "ignoredErrors": ignored,
            "orientation": ws.page_setup.orientation,
            "fitToPage": bool(fit is not None and fit.fitToPage),
            "fitToWidth": ws.page_setup.fitToWidth,
            "fitToHeight": ws.page_setup.fitToHeight,
            "scale": ws.page_setup.scale,
            "printTitleRows": ws.print_title_rows,
            "header": part("oddHeader"),
            "footer": part("oddFooter"),
            "rowBreaks": [b.id for b in ws.row_breaks.brk],
            "blankBorders": blank_borders,
        }
    print(json.dumps(result))
    """#

    /// Skips the test when /usr/bin/python3 cannot import openpyxl.
    public static func requireOpenpyxl() throws {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw XCTSkip("\(python) is missing: install python3-openpyxl (Debian) to check XLSX output")
        }
        let check = try run([python, "-c", "import openpyxl"])
        if check.status != 0 {
            throw XCTSkip("\(python) lacks openpyxl: install python3-openpyxl (Debian) to check XLSX output")
        }
    }

    public init(path: String) throws {
        try OpenpyxlWorkbook.requireOpenpyxl()
        let result = try OpenpyxlWorkbook.run([OpenpyxlWorkbook.python, "-c", OpenpyxlWorkbook.script, path])
        guard result.status == 0 else {
            throw NSError(domain: "openpyxl", code: Int(result.status),
                          userInfo: [NSLocalizedDescriptionKey: "openpyxl failed: \(result.error)"])
        }
        json = try JSONSerialization.jsonObject(with: result.output) as? [String: Any] ?? [:]
    }

    public var sheetNames: [String] { json["sheets"] as? [String] ?? [] }
    public var properties: [String: Any] { json["properties"] as? [String: Any] ?? [:] }

    public func sheet(_ name: String) -> [String: Any] {
        (json["worksheets"] as? [String: Any])?[name] as? [String: Any] ?? [:]
    }

    public func cells(_ sheetName: String) -> [String: [String: Any]] {
        sheet(sheetName)["cells"] as? [String: [String: Any]] ?? [:]
    }

    public func cell(_ sheetName: String, _ reference: String) -> [String: Any] {
        cells(sheetName)[reference] ?? [:]
    }

    public static func run(_ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
        try runTool(arguments)
    }

    /// Asserts a cell's type and, when given, its value, number format, boldness and cached formula value.
    public func assertCell(_ sheet: String, _ reference: String, type: String, value: Any? = nil, format: String? = nil,
                           bold: Bool? = nil, cached: Any? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let cell = self.cell(sheet, reference)
        XCTAssertEqual(cell["type"] as? String, type, "\(reference) type", file: file, line: line)
        if let value { XCTAssertEqual(cell["value"] as? NSObject, value as? NSObject, "\(reference) value", file: file, line: line) }
        if let format { XCTAssertEqual(cell["format"] as? String, format, "\(reference) number format", file: file, line: line) }
        if let bold { XCTAssertEqual(cell["bold"] as? Bool, bold, "\(reference) bold", file: file, line: line) }
        if let cached { XCTAssertEqual(cell["cached"] as? NSObject, cached as? NSObject, "\(reference) cached value", file: file, line: line) }
    }
}
