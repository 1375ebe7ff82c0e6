// What each fuzz target does with one input (issue 6, "Fuzzing"). The libFuzzer executables in Fuzz/ are
// thin wrappers around these functions, and Tests/FuzzRegressionTests runs the seed corpus and every input
// that ever crashed through the very same functions in the normal test suite.
//
// Errors are the expected outcome for most inputs and are ignored; what must never happen is a crash, a
// hang, unbounded memory, or a broken invariant — which is turned into a crash (`fatalError`) so that
// libFuzzer keeps the input:
// - CSV: reading any bytes with any options ends with records or a CSVError; a record has at least one
//   field, line numbers never go back; records written by CSVWriter read back equal.
// - Predicates: parsing any text ends with a syntax or binding error or a plan; a parsed predicate printed
//   and parsed again prints the same; a bound plan compiles to SQL that SQLite accepts, and gives the same
//   objects, in the same order, as the in-memory evaluator on a small store with awkward values.
// - Predicate shapes: deep nesting and long chains of any size end in a located error or a plan that runs,
//   never in a stack overflow; a chain of any length is accepted; long IN lists and sums at the edges of the
//   decimal range run alike in SQL and in memory.
// - Definition shapes: the same predicates, and long column and sort lists, inside report definitions and
//   model files: a definition error or a model with its place, or a report that runs; never a crash.
// - Report definitions: loading any YAML ends with a definition error or a report that runs on that store.

import CSV
import Foundation
import LocalTime
import ObjectStore
import Bookkeeping
import Reports

public enum FuzzHarness {
    /// How far an input got (for the replay test's counts; the fuzzers ignore it).
    public enum Outcome: String, Sendable {
        case rejected   // an error, as expected for most inputs
        case accepted   // read, bound, or run to the end
    }

    // MARK: CSV

    /// The first byte picks the reader's options and source (memory, or a file descriptor, which the reader may
    /// pre-scan for the encoding); the rest is the input.
    @discardableResult
    public static func csv(_ bytes: [UInt8]) -> Outcome {
        guard let selector = bytes.first else { return .rejected }
        let input = Data(bytes.dropFirst())
        let delimiters: [CSVReader.Delimiter] = [.auto, .comma, .semicolon, .tab, .pipe, .byte(UInt8(ascii: ":")), .comma, .auto]
        let encodings: [CSVEncoding] = [.auto, .utf8, .windows1252, .latin1]
        let options = CSVReader.Options(
            delimiter: delimiters[Int(selector & 7)],
            encoding: encodings[Int((selector >> 3) & 3)],
            fieldCount: selector & 0x20 != 0 ? .sameAsHeader : .any,
            maxRecordBytes: selector & 0x40 != 0 ? 64 : 16 << 20,
            bufferSize: selector & 0x80 != 0 ? 4 : 256 << 10)
        var records: [[String]] = []
        var complete = false
        do {
            let reader: CSVReader
            if selector & 6 == 6 {
                // Delimiters 6 and 7 (comma, auto) read through a file descriptor, of a file in the fixture's folder.
                let fd = open(fixture.directory + "/input.csv", O_RDWR | O_CREAT | O_TRUNC, 0o600)
                guard fd >= 0 else { fatalError("cannot open a temporary file: \(errno)") }
                _ = input.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                _ = lseek(fd, 0, SEEK_SET)
                reader = try CSVReader(fileDescriptor: fd, displayName: "fuzz.csv", closeWhenDone: true, options: options)
            } else {
                reader = try CSVReader(data: input, displayName: "fuzz.csv", options: options)
            }
            var lastLine = 0
            reading: while true {
                do {
                    guard let record = try reader.next() else { complete = true; break reading }
                    guard record.count >= 1 else { fatalError("a record without fields") }
                    guard record.line >= lastLine else { fatalError("line \(record.line) after line \(lastLine)") }
                    lastLine = record.line
                    records.append(Array(record))
                    _ = record.rawText
                } catch let error as CSVError {
                    _ = error.description
                    // A field-count mismatch leaves the reader after the bad record; every other error is final.
                    if case .fieldCountMismatch = error.kind { continue }
                    break reading
                }
            }
        } catch let error as CSVError {
            _ = error.description
        } catch {
            fatalError("the reader threw something that is not a CSVError: \(error)")
        }
        guard complete else { return .rejected }
        // A NUL is refused among the first bytes read (not text) but read as a character after them, so the written
        // copy of such records would be refused: the property holds for text.
        if records.contains(where: { $0.contains { $0.utf8.contains(0) } }) { return .accepted }
        // What was read, written and read again, is the same.
        let delimiter: UInt8 = [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: "|")][Int(selector & 3)]
        let writer = CSVWriter(options: CSVWriter.Options(delimiter: delimiter, lineEnding: selector & 4 != 0 ? .crlf : .lf,
                                                          byteOrderMark: selector & 8 != 0))
        do {
            for record in records { try writer.writeRecord(record) }
            let again = try CSVReader(data: writer.data, options: CSVReader.Options(delimiter: .byte(delimiter), encoding: .utf8)).readAll()
            guard again == records else {
                fatalError("written and read back differently:\n\(records.debugDescription)\n\(again.debugDescription)")
            }
        } catch {
            fatalError("records read from CSV could not be written and read back: \(error)")
        }
        return .accepted
    }

    // MARK: Predicates

    /// Lines: an entity (else Order), a predicate, sort keys, columns, group keys (the last takes the rest).
    @discardableResult
    public static func predicate(_ bytes: [UInt8]) -> Outcome {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
        let model = fixture.store.model
        let entity = model.entities.contains { $0.name == parts[0] } ? parts[0] : "Order"
        let predicate = parts.count > 1 ? parts[1] : parts[0]

        // Parse, print, parse again: the same text.
        if let syntax = try? PredicateSyntax(parsing: predicate) {
            let printed = syntax.description
            guard let again = try? PredicateSyntax(parsing: printed) else {
                fatalError("the printed predicate does not parse: \(predicate.debugDescription) printed as \(printed.debugDescription)")
            }
            guard again.description == printed else {
                fatalError("printing is not stable: \(predicate.debugDescription) → \(printed.debugDescription) → \(again.description.debugDescription)")
            }
        }

        // Bind against the bookkeeping model; run through SQL and in memory.
        let sort = parts.count > 2 ? (try? SortKey.parseList(parts[2])) ?? [] : []
        var columns = parts.count > 3 ? parts[3].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : nil
        // `fetch --columns ' , '` is refused before a plan is made (it compiled to `SELECT  FROM`: a fuzz finding).
        if columns?.allSatisfy({ $0.isEmpty }) == true { columns = nil }
        let group = parts.count > 4 ? parts[4].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : []
        let request = ObjectFetchRequest(entity: entity, predicate: predicate, sortDescriptors: sort,
                                   variables: ["q": "Acme", "when": "2024-03-01", "n": "2", "list": "vip,retail"],
                                   textArguments: predicate.contains("%@") || predicate.contains("%K") ? ["A-", "number", "1"] : [])
        let plan: FetchPlan
        do { plan = try FetchPlan(request, model: model, columns: columns, groupBy: group) } catch { debug("bind: \(error)"); return .rejected }
        let context = ObjectContext(store: fixture.store)
        let viaSQL: [Int64?]
        do {
            if columns != nil {
                var rows = 0
                try fixture.store.fetchColumns(plan) { _ in rows += 1 }
            }
            if plan.isGrouped { return .accepted }
            viaSQL = try context.fetch(plan).map(\.rowID)
        } catch let error as CategorizedError {
            // A bound plan must compile to SQL that runs; only a regular expression the user wrote may fail there,
            // or nesting within the parser's limit that SQLite still finds too deep (a usage error, not a crash).
            if "\(error)".contains("regular expression") || "\(error)".contains("MATCHES") { return .rejected }
            if case StoreError.queryTooLarge = error { return .rejected }
            fatalError("a bound plan failed in SQLite: \(predicate.debugDescription): \(error)\n\(fixture.store.explain(plan, .objects))")
        } catch {
            fatalError("a bound plan failed: \(predicate.debugDescription): \(error)")
        }
        guard let inMemory = try? context.fetchInMemory(plan).map(\.rowID) else { return .rejected }
        guard viaSQL == inMemory else {
            fatalError("SQL and the evaluator disagree on \(entity) where \(predicate.debugDescription) sort \(sort): \(viaSQL) vs \(inMemory)\n\(fixture.store.explain(plan, .objects))")
        }
        return .accepted
    }

    // MARK: Predicate shapes

    /// Deep and long predicates (issue 15): the first byte picks a shape, the next two its size (up to 65,535
    /// levels or terms), the rest the words it is built from. Whatever the size: no crash; a chain of any
    /// length parses, binds and runs alike in SQL and in memory; nesting past the limit is a located "nested
    /// more than" error, and within it the predicate runs (or SQLite refuses it as too large, a usage error).
    @discardableResult
    public static func predicateShape(_ bytes: [UInt8]) -> Outcome {
        guard bytes.count >= 3 else { return .rejected }
        let size = Int(bytes[1]) << 8 | Int(bytes[2])
        let (text, isChain) = shapeText(bytes[0], size: size, words: bytes.dropFirst(3))
        do {
            _ = try PredicateSyntax(parsing: text, origin: PredicateSourceOrigin(name: "where"))
        } catch {
            let message = "\(error)"
            if isChain || !message.contains("nested more than \(PredicateParser.maximumDepth) levels deep") {
                fatalError("\(text.prefix(200))…: \(message)")
            }
            return .rejected
        }
        if isChain && size > longestChainRun {
            // Bound and compiled to SQL, not run: SQLite's own statement preparation grows faster than linearly
            // past some 20,000 bound values (34,816 ORed terms took 23 s of CPU in a release build, 0.7 s of it
            // ours; libFuzzer's timeout found it). 5,000 terms run in QueryTrustCommandTests; here under AddressSanitizer
            // a few thousand stay well inside libFuzzer's 10 s.
            do {
                let plan = try FetchPlan(ObjectFetchRequest(entity: "Order", predicate: text), model: fixture.store.model, columns: nil)
                _ = fixture.store.explain(plan, .objects)
            } catch {
                fatalError("a chain was not accepted: \(text.prefix(200))…: \(error)")
            }
            return .accepted
        }
        let outcome = predicate(Array(("Order\n" + text).utf8))
        if isChain && outcome != .accepted { fatalError("a chain was not accepted: \(text.prefix(200))…") }
        return outcome
    }

    /// The longest chain a shape runs on the store (see `predicateShape`).
    static let longestChainRun = 3_000

    /// Comparisons over Order that shapes are built from; the last ones meet the edges of the decimal range
    /// (issue 15 §3: sums beyond an Int64 must compare exactly in SQL and in memory).
    static let shapeComparisons = ["paid == NO", "number BEGINSWITH[c] 'a'", "customer.name != nil", "ANY rows.sum > 10",
                                   "rows.@sum.sum >= 0", "made == YES", "date < '2024-03-01'", "NOT customer.code == 'C1'",
                                   "rows.@sum.sum < 92233720368547758.07", "rows.@max.sum > -92233720368547758.08",
                                   "rows.@sum.quantity >= 184467440737095516.150", "rows.@avg.price <= 1.0000000000000000000000"]

    /// The text of a shape (the first byte), `size` levels or terms, built from `words`; and whether it is a chain,
    /// which must always be accepted. Shared by predicate shapes and definition shapes.
    static func shapeText(_ shapeByte: UInt8, size: Int, words: ArraySlice<UInt8>) -> (String, Bool) {
        let comparisons = shapeComparisons
        func term(_ i: Int) -> String { comparisons[Int(words.isEmpty ? UInt8(i & 7) : words[words.startIndex + i % words.count]) % comparisons.count] }
        let text: String
        var isChain = false
        switch shapeByte % 11 {
        case 0: text = String(repeating: "(", count: size) + term(0) + String(repeating: ")", count: size)
        case 1: text = String(repeating: "NOT ", count: size) + term(0)
        case 2: text = (0...size).map(term).joined(separator: " AND "); isChain = true
        case 3: text = (0...size).map(term).joined(separator: " OR "); isChain = true
        case 4:
            // Alternating AND and OR groups, each a level deeper.
            var t = term(0)
            for i in 0..<size { t = i % 2 == 0 ? "\(term(i)) AND (\(t))" : "\(term(i)) OR (\(t))" }
            text = t
        case 5: text = "number IN " + String(repeating: "{", count: size) + "'A-1'" + String(repeating: "}", count: size)
        case 6:
            // Nested SUBQUERYs over the same rows cost rows^levels in both engines: a few levels, or past the limit.
            var t = term(0)
            for i in 0..<(size <= 6 ? size : PredicateParser.maximumDepth + size % 64) { t = "SUBQUERY(rows, $r\(i), $r\(i).sum > 0 AND \(i % 2 == 0 ? "" : "NOT ")(\(t))).@count >= 0" }
            text = t
        case 7:
            // Groups of chains: (a AND b AND …) OR (c AND d AND …) OR …
            let width = max(1, words.count)
            text = stride(from: 0, through: size, by: width).map { start in
                "(" + (start..<(start + width)).map(term).joined(separator: " AND ") + ")"
            }.joined(separator: " OR ")
            isChain = true
        case 8:
            // A long IN list of text (one bound array in SQL, issue 15 §4), with the words' bytes in it.
            // Letters only: a quote, a NUL or a line break would make another predicate (or none), not a longer list.
            let tail = String(decoding: words.map { UInt8(ascii: "a") + $0 % 26 }, as: UTF8.self)
            text = "number IN {" + (0...size).map { "'A-\($0 % 7)\(tail)'" }.joined(separator: ", ") + "}"
            isChain = true
        case 9:
            // A long IN list of numbers, at and beyond the edges of the decimal range, against a sum.
            let edges = ["0", "-1", "20.5", "92233720368547758.07", "92233720368547758.08", "-92233720368547758.08",
                         "184467440737095516.14", "1.000000000000000000000", "nil", "99.99"]
            text = "rows.@sum.sum IN {" + (0...size).map { edges[(Int(words.isEmpty ? 0 : words[words.startIndex + $0 % words.count]) + $0) % edges.count] }
                .joined(separator: ", ") + "}"
            isChain = true
        default:
            // NOT and parentheses alternating with chains of edge comparisons, to the nesting limit or past it.
            var t = term(size)
            for i in 0..<min(size, PredicateParser.maximumDepth + 8) {
                t = "NOT (\(term(i + 8)) OR \(t))"
            }
            text = t
        }
        return (text, isChain)
    }

    // MARK: Definition shapes

    /// Deep and long predicates, column and sort lists inside report definitions and model files (issue 15:
    /// "the same inside a report definition and a model file"). Byte 0 picks the container, byte 1 the
    /// predicate shape, bytes 2–3 the size, the rest the words. No input may crash; a chain in a definition's
    /// `where:` or a model rule is accepted. Chains that would run on the store are capped at 2,000 terms (a
    /// report also runs its count): SQLite's time, not ours, grows faster past that (see `predicateShape`).
    @discardableResult
    public static func definitionShape(_ bytes: [UInt8]) -> Outcome {
        guard bytes.count >= 4 else { return .rejected }
        let size = Int(bytes[2]) << 8 | Int(bytes[3])
        let words = bytes.dropFirst(4)
        let keys = ["number", "date desc", "customer.name", "rows.@sum.sum desc", "rows.@count", "customer.code natural",
                    "rows.@max.sum", "paid"]
        func key(_ i: Int) -> String { keys[(Int(words.isEmpty ? 0 : words[words.startIndex + i % words.count]) + i) % keys.count] }
        let container = bytes[0] % 5
        let shape = bytes[1]
        let chainShapes: Set<UInt8> = [2, 3, 7]
        let capped = chainShapes.contains(shape % 11) ? min(size, 2_000) : size
        let (predicateText, isChain) = shapeText(shape, size: capped, words: words)
        switch container {
        case 0, 1, 2:
            var yaml = "title: Shape\nentity: Order\n"
            switch container {
            case 0: yaml += "where: |-\n  \(predicateText)\ncolumns: [number, rows.@sum.sum]\n"
            case 1:
                yaml += "columns:\n" + (0...min(size, 3_000)).map { "  - { key: \(key($0).split(separator: " ")[0]), title: c\($0) }" }
                    .joined(separator: "\n") + "\n"
            default:
                yaml += "sort: " + (0...min(size, 3_000)).map(key).joined(separator: ", ") + "\ncolumns: [number]\n"
            }
            let outcome = reportDefinition(Array(yaml.utf8))
            if container == 0 && isChain && outcome != .accepted {
                fatalError("a chain in a report definition was not accepted: \(predicateText.prefix(200))…")
            }
            return outcome
        default:
            var yaml = "entities:\n  Order:\n"
            if container == 3 {
                yaml += "    rules:\n      - where: |-\n          \(predicateText)\n        message: shape\n"
            } else {
                yaml += "    sort: " + (0...min(size, 3_000)).map(key).joined(separator: ", ") + "\n"
            }
            do {
                _ = try ModelFile.parse(yaml, name: "fuzz-model.yaml", extending: BookkeepingModel.model)
            } catch {
                let message = "\(error)"
                if container == 3 && isChain { fatalError("a chain in a model rule was refused: \(message.prefix(300))") }
                guard message.contains("fuzz-model.yaml:") else { fatalError("a model file error without its place: \(message.prefix(300))") }
                return .rejected
            }
            return .accepted
        }
    }

    // MARK: Report definitions

    @discardableResult
    public static func reportDefinition(_ bytes: [UInt8]) -> Outcome {
        let text = String(decoding: bytes, as: UTF8.self)
        let definition: ReportDefinition
        do { definition = try ReportDefinition.parse(text, name: "fuzz", file: "fuzz.yaml") } catch { debug("report: \(error)"); return .rejected }
        let clock = ReportClock(now: Date(timeIntervalSince1970: 1_795_000_000), timeZone: .utc)
        do {
            try PreparedReport.check(definition, model: fixture.store.model, clock: clock)
        } catch {
            debug("report check: \(error)")
            return .rejected
        }
        guard let report = try? PreparedReport(definition, model: fixture.store.model, clock: clock, rejectUnknown: false) else { return .rejected }
        _ = report.explanation
        do {
            _ = try report.rows(from: fixture.store)
        } catch let error as CategorizedError {
            if "\(error)".contains("regular expression") || "\(error)".contains("MATCHES") { return .rejected }
            // Nesting within the parser's limit that SQLite still finds too deep: a usage error, as for fetch.
            if case StoreError.queryTooLarge = error { return .rejected }
            fatalError("a checked report failed to run: \(error)\n\(text.prefix(2_000))")
        } catch {
            fatalError("a checked report failed to run: \(error)\n\(text)")
        }
        return .accepted
    }

    /// FUZZ_HARNESS_DEBUG=1 prints why inputs were rejected (to see what a seed corpus reaches).
    static let debugging = ProcessInfo.processInfo.environment["FUZZ_HARNESS_DEBUG"] != nil
    static func debug(_ text: @autoclosure () -> String) { if debugging { print("fuzz harness: \(text())") } }

    // MARK: The store

    static let fixtureDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("bookkeeper-fuzz-\(getpid())").path

    /// A small store of the bookkeeping model with awkward values: NULLs, accents and case variants, numbers
    /// inside names, an order without customer or rows, equal sums. Made once per process.
    package static let fixture: (store: Store, directory: String) = {
        let directory = fixtureDirectory
        try? FileManager.default.removeItem(atPath: directory)
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: FuzzHarness.fixtureDirectory) }
        let store = try! Store.create(at: directory + "/fixture.sqlite", model: BookkeepingModel.model)
        let context = ObjectContext(store: store)
        func add(_ entity: String, _ assignments: [String]) {
            let object = try! context.insert(entity)
            try! context.apply(assignments.map { try! Assignment(parsing: $0) }, to: object)
            try! context.save()
        }
        for tag in ["vip", "VIP ", "wholesale", "Straße", "slow payer"] { add("Tag", ["name=\(tag)"]) }
        add("Customer", ["name=Acme Ltd", "code=C1", "info=since 2019", "tags=vip,wholesale"])
        add("Customer", ["name=acme ltd", "code=c1"])
        add("Customer", ["name=Müller GmbH", "info=Berlin", "tags=Straße"])
        add("Customer", ["name=MULLER GMBH", "code=C10"])
        add("Customer", ["name=Item 2", "code=C2", "info="])
        add("Customer", ["name=Item 10", "code=C20", "tags=vip"])
        add("Customer", ["name=O'Brien \"Q\"", "info=quote's"])
        add("Service", ["name=Delivery", "code=S1"])
        add("Service", ["name=délivery", "info=lower"])
        add("Service", ["name=Repair", "code=S3"])
        add("Order", ["number=A-1", "date=2024-03-01", "customer=Acme Ltd", "made=yes", "paid=no"])
        add("Order", ["number=A-2", "date=2024-02-29", "customer=Müller GmbH", "made=yes", "paid=yes"])
        add("Order", ["number=a-10", "date=2023-12-31", "made=no", "paid=no"])
        add("Order", ["number=B-1", "date=2024-03-01", "customer=Item 2", "made=yes", "paid=no"])
        add("Order", ["number=B-2", "date=2024-01-15", "customer=acme ltd"])
        add("OrderRow", ["order=A-1", "service=Delivery", "quantity=2", "price=10.25"])
        add("OrderRow", ["order=A-1", "service=Repair", "sum=0.00"])
        add("OrderRow", ["order=A-2", "service=Delivery", "quantity=1", "price=99.99"])
        add("OrderRow", ["order=B-1", "service=délivery", "quantity=0.5", "price=20.50"])
        add("OrderRow", ["order=B-1", "service=Repair", "quantity=3", "price=-1.00"])
        add("OrderRow", ["order=B-2", "service=Repair", "sum=20.50"])
        return (store, directory)
    }()
}
