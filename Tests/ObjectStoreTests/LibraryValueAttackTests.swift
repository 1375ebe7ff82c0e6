import XCTest
import TestSupport
@testable import ObjectStore

/// The value findings of the attack on the engine as a library (attack 18): values a library caller can make that
/// the store cannot hold (text with a NUL, instants outside the years 1 to 9999) are refused at save and as fetch
/// arguments, in the words the command line's input and the fetch path use; no public call on a value traps.
final class LibraryValueAttackTests: XCTestCase {
    var store: Store!
    var dir: TemporaryDirectory!

    override func setUpWithError() throws {
        (store, dir) = try TestModel.makeStore()
    }

    /// The issues a save of what `body` does reports (key and message), or [] when it saves.
    private func issues(_ body: (ObjectContext) throws -> Void) throws -> [String] {
        let c = ObjectContext(store: store)
        try body(c)
        do {
            try c.save()
            return []
        } catch let error as ValidationFailure {
            return error.issues.map { "\($0.key ?? "-"): \($0.message)" }
        }
    }

    private func book(_ c: ObjectContext, _ isbn: String, title: String = "T") throws -> ManagedObject {
        let b = try c.insert("Book")
        b["isbn"] = .string(isbn)
        b["title"] = .string(title)
        return b
    }

    private func count(_ predicate: String? = nil, _ arguments: [Value] = []) throws -> Int {
        try ObjectContext(store: store).fetch(ObjectFetchRequest(entity: "Book", predicate: predicate, arguments: arguments)).count
    }

    // Finding 1: "a\0b" saved and read back as "a"; two unique keys differing after the NUL both saved.
    func testATextWithANulIsRefusedAtSaveNotCutShort() throws {
        let before = try dumpStore(store.path)
        let found = try issues { c in
            _ = try book(c, "1", title: "a\u{0}b")
            _ = try book(c, "E2\u{0}hidden")
            _ = try book(c, "E2\u{0}other")
            _ = try book(c, "\u{0}")
        }
        XCTAssertEqual(found, [
            #"Book.title: Book.title "a\0b" contains a NUL character (\0), which text in the store cannot hold"#,
            #"Book.isbn: Book.isbn "E2\0hidden" contains a NUL character (\0), which text in the store cannot hold"#,
            #"Book.isbn: Book.isbn "E2\0other" contains a NUL character (\0), which text in the store cannot hold"#,
            #"Book.isbn: Book.isbn "\0" contains a NUL character (\0), which text in the store cannot hold"#,
        ])
        XCTAssertEqual(try dumpStore(store.path), before, "nothing is written")
        // The fetch path refuses the same text in the same words.
        XCTAssertThrowsError(try count("title == %@", [.string("a\u{0}b")])) { error in
            XCTAssertEqual((error as? FetchError)?.message, #""a\0b" contains a NUL character (\0), which text in the store cannot hold"#)
        }
        // Text without a NUL still saves and reads back whole; so does a NUL changed on a stored object, refused.
        XCTAssertEqual(try issues { c in _ = try book(c, "2", title: "a\u{1}b") }, [])
        let c = ObjectContext(store: store)
        let stored = try XCTUnwrap(c.object(of: "Book", where: "isbn", equals: .string("2")))
        XCTAssertEqual(stored["title"], .string("a\u{1}b"))
        stored["title"] = .string("x\u{0}")
        XCTAssertThrowsError(try c.save()) { XCTAssertTrue($0 is ValidationFailure, "\($0)") }
        XCTAssertFalse(Value.string("a\u{0}").fits(.string))
        XCTAssertTrue(Value.string("a").fits(.string))
    }

    // Finding 1 (the brief): a run of more combining marks than the command line's input takes is refused at save
    // too, in the command line's words (Value.parse).
    func testATextWithAnOverlongMarkRunIsRefusedAtSaveAsTheCommandLineRefusesIt() throws {
        let text = "Z" + String(repeating: "\u{301}\u{316}", count: 20)
        let reason: String
        do {
            _ = try Value.parse(text, as: .string)
            return XCTFail("the command line's input takes it")
        } catch {
            reason = error.reason
        }
        XCTAssertTrue(reason.hasPrefix("holds 40 combining marks in a row at character 2"), reason)
        XCTAssertEqual(try issues { c in _ = try book(c, "1", title: text) }, ["Book.title: Book.title \(reason)"])
        XCTAssertEqual(try issues { c in _ = try book(c, "1", title: "Z" + String(repeating: "\u{301}", count: 30)) }, [])
    }

    // Finding 2: instants past 9999 or before year 1 saved as text, then compared and sorted wrongly.
    func testAnInstantOutsideYears1To9999IsRefusedAtSaveNotSortedWrongly() throws {
        let outside: [Int64] = [253_402_300_800, -62_135_596_801, Int64.max, Int64.min, Int64.min + 86_399, Int64.max - 86_399]
        for (i, s) in outside.enumerated() {
            let t = Timestamp(secondsSinceEpoch: s)
            let found = try issues { c in try book(c, "X\(i)")["checked"] = .dateTime(t) }
            XCTAssertEqual(found, ["Book.checked: Book.checked \"\(t)\" falls outside the years 1 to 9999 in UTC"], "\(s)")
            XCTAssertFalse(Value.dateTime(t).fits(.dateTime))
        }
        XCTAssertEqual(try issues { c in try book(c, "X")["checked"] = .dateTime(Timestamp(secondsSinceEpoch: 253_402_300_800)) },
                       [#"Book.checked: Book.checked "10000-01-01T00:00:00Z" falls outside the years 1 to 9999 in UTC"#])
        // The command line's input refuses such an instant in the same words.
        XCTAssertThrowsError(try Value.parse("0001-01-01T00:00:00+01:00", as: .dateTime)) { error in
            XCTAssertEqual((error as? ValueParseError)?.reason, "falls outside the years 1 to 9999 in UTC")
        }
        // The first and last instants save, and compare and sort rightly with one between.
        let edges: [(String, Int64)] = [("last", 253_402_300_799), ("mid", 1_767_225_600), ("first", -62_135_596_800)]
        XCTAssertEqual(try issues { c in
            for (name, s) in edges { try book(c, name)["checked"] = .dateTime(Timestamp(secondsSinceEpoch: s)) }
        }, [])
        let c = ObjectContext(store: store)
        let sorted = try c.fetch(ObjectFetchRequest(entity: "Book", sortDescriptors: [SortKey("checked")])).map { $0["isbn"] }
        XCTAssertEqual(sorted, [.string("first"), .string("mid"), .string("last")])
        XCTAssertEqual(try count("checked > %@", [.dateTime(Timestamp(secondsSinceEpoch: 1_767_225_600))]), 1)
    }

    // Finding 6: Timestamp(secondsSinceEpoch:) within a day of Int64.min trapped in description, day, save and as
    // a fetch argument (floorDays overflowed).
    func testATimestampNearInt64MinTrapsNowhereAndIsRefusedAsAFetchArgument() throws {
        for s in [Int64.min, Int64.min + 1, Int64.min + 86_398, Int64.min + 86_399, Int64.min + 86_400, -1, 0, Int64.max] {
            let t = Timestamp(secondsSinceEpoch: s)
            XCTAssertTrue(t.description.hasSuffix("Z"), t.description)
            XCTAssertNil(s == 0 || s == -1 ? nil : t.day)
        }
        XCTAssertEqual(Timestamp(secondsSinceEpoch: Int64.min).description.suffix(10), "T08:29:52Z")  // Int64.min mod 86,400 = 30,592
        XCTAssertEqual(Timestamp(secondsSinceEpoch: -1).description, "1969-12-31T23:59:59Z")
        // Save: refused (finding 2's check), not a trap inside the write transaction.
        XCTAssertEqual(try issues { c in try book(c, "1")["checked"] = .dateTime(Timestamp(secondsSinceEpoch: Int64.min)) }.count, 1)
        // A fetch argument: a FetchError, for either end.
        for s in [Int64.min, Int64.min + 86_399, -62_135_596_801, 253_402_300_800, Int64.max] {
            let t = Timestamp(secondsSinceEpoch: s)
            XCTAssertThrowsError(try count("checked > %@", [.dateTime(t)])) { error in
                XCTAssertEqual((error as? FetchError)?.message,
                               "argument 1 is the date-time \(t), which falls outside the years 1 to 9999 in UTC", "\(s)")
            }
        }
        XCTAssertEqual(try count("checked > %@", [.dateTime(Timestamp(secondsSinceEpoch: -62_135_596_800))]), 0)
    }

    /// floorDays and secondsOfDay against Int128 arithmetic, which cannot overflow, over every Int64 end and random
    /// instants; in the years a Day holds, the description reads back as the same instant.
    func testDayArithmeticMatchesWideArithmeticOverEveryInt64() throws {
        var rng = SeededGenerator(seed: 1818)
        var samples: [Int64] = [.min, .min + 1, .min + 86_399, .min + 86_400, -86_401, -86_400, -86_399, -1, 0, 1, 86_399, 86_400, .max - 1, .max]
        for _ in 0..<20_000 { samples.append(Int64.random(in: .min ... .max, using: &rng)) }
        for _ in 0..<20_000 { samples.append(Int64.random(in: Timestamp.range, using: &rng)) }
        for s in samples {
            let wide = Int128(s)
            var q = wide / 86_400
            if wide % 86_400 < 0 { q -= 1 }
            XCTAssertEqual(Int128(Timestamp.floorDays(s)), q, "\(s)")
            XCTAssertEqual(Int128(Timestamp.secondsOfDay(s)), wide - q * 86_400, "\(s)")
            let t = Timestamp(secondsSinceEpoch: s)
            if Timestamp.range.contains(s) {
                XCTAssertEqual(Timestamp(iso: t.description), t, "\(s)")
                XCTAssertNotNil(t.day)
            } else {
                XCTAssertNil(t.day, "\(s)")
                XCTAssertNil(Timestamp(iso: t.description), "\(s)")
            }
        }
    }

    // Finding 7: exactly(atScale:) and rounded(toScale:), which return Optionals, trapped for a scale outside 0…18.
    func testADecimalScaleOutside0To18GivesNilNotATrap() throws {
        let d = try XCTUnwrap(DecimalNumber(exactly: "1.5"))
        for scale in [19, 40, -1, Int.max, Int.min] {
            XCTAssertNil(d.exactly(atScale: scale), "\(scale)")
            XCTAssertNil(d.rounded(toScale: scale), "\(scale)")
        }
        XCTAssertEqual(d.exactly(atScale: 18)?.description, "1.500000000000000000")
        XCTAssertEqual(d.rounded(toScale: 0)?.description, "2")
        XCTAssertNil(d.exactly(atScale: 0))
        XCTAssertFalse(Value.decimal(d).fits(.decimal(scale: 19)))
    }

    // Finding 5: a busyTimeout of .infinity, .nan or beyond ~24.8 days trapped converting to SQLite's C int.
    func testABusyTimeoutBeyondSQLiteIsClampedAndANaNOrNegativeIsRefused() throws {
        for (i, t) in [TimeInterval.infinity, 1e300, 3e6, Store.longestBusyTimeout, Store.longestBusyTimeout + 1, 0].enumerated() {
            let path = dir.file("ok\(i).sqlite")
            let created = try Store.create(at: path, model: TestModel.model, busyTimeout: t)
            let c = ObjectContext(store: created)
            _ = try book(c, "1")
            try c.save()
            let opened = try Store.open(at: path, model: TestModel.model, busyTimeout: t)
            XCTAssertEqual(try ObjectContext(store: opened).count(of: "Book"), 1)
        }
        for t in [TimeInterval.nan, -1, -TimeInterval.infinity, -0.001] {
            let path = dir.file("bad.sqlite")
            XCTAssertThrowsError(try Store.create(at: path, model: TestModel.model, busyTimeout: t)) { error in
                XCTAssertEqual(error as? StoreError, .invalidBusyTimeout(path: path, value: "\(t)"))
                XCTAssertEqual("\(error)", "\(path): busyTimeout \(t) is not a number of seconds to wait (give 0 or more; 0 does not wait)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing is created")
            XCTAssertThrowsError(try Store.open(at: store.path, model: TestModel.model, busyTimeout: t)) { error in
                XCTAssertEqual(error as? StoreError, .invalidBusyTimeout(path: store.path, value: "\(t)"))
            }
        }
    }
}
