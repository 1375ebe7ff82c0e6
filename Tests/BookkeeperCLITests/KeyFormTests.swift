import Foundation
import XCTest
import TestSupport

/// Issue 24 §1, end to end: a key is one key in every Unicode normal form (stored as first given, compared by NFC:
/// import upserts, references, --create-missing, add, show), and a key spelt like an object ID is the key.
final class KeyFormTests: ImportTestCase {
    let nfc = "Caf\u{E9} Ol\u{E9}"
    let nfd = "Cafe\u{301} Ole\u{301}"

    func hex(_ s: String) -> String { s.utf8.map { String(format: "%02X", $0) }.joined() }

    func storedNames() throws -> [String] { try query("SELECT hex(name) FROM Customer ORDER BY id") }

    // MARK: Regressions

    func testAnNFDNameMadeASecondCustomerThroughCreateMissing() throws {
        ok("init")
        ok("add", "Customer", "name=\(nfc)")
        let out = ok("import", "Order", csv("orders.csv", "number,customer\nA-1,\(nfd)\nA-2,\(nfc)\n"), "--create-missing")
        XCTAssertNil(counts(out, "Customer"), "no customer created: \(out)")
        XCTAssertEqual(try storedNames(), [hex(nfc)])
        XCTAssertEqual(try query("SELECT customer_id FROM \"Order\" ORDER BY id"), ["1", "1"])
        // And the other way round, in one file: the first spelling is the one kept.
        let again = ok("import", "Order", csv("more.csv", "number,customer\nB-1,Bu\u{308}ro\nB-2,B\u{FC}ro\n"), "--create-missing")
        XCTAssertEqual(counts(again, "Customer"), "1 inserted, 0 updated, 0 unchanged, 0 rejected")
        XCTAssertEqual(try storedNames(), [hex(nfc), hex("Bu\u{308}ro")])
        // A directory file upserts by the key in either form.
        let upsert = ok("import", "Customer", csv("customers.csv", "name,info\n\(nfd),x\nB\u{FC}ro,y\n"))
        XCTAssertEqual(counts(upsert, "Customer"), "0 inserted, 2 updated, 0 unchanged, 0 rejected")
        XCTAssertEqual(try storedNames(), [hex(nfc), hex("Bu\u{308}ro")])
    }

    func testAnNFDNameMadeASecondCustomerThroughAdd() throws {
        ok("init")
        ok("add", "Customer", "name=\(nfc)")
        let r = bk("add", "Customer", "name=\(nfd)")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "bookkeeper: Customer.name \"\(nfd)\" already exists "
                       + "(as \"\(nfc)\", the same text in another Unicode normal form)\n")
        // The same refusal as for the same bytes: exit status 65.
        XCTAssertEqual(bk("add", "Customer", "name=\(nfc)").status, 65)
        // Renaming another customer into the other form is refused too; so is a unique code.
        ok("add", "Customer", "name=Bolt", "code=K\u{F6}ln")
        XCTAssertEqual(bk("set", "Customer", "Bolt", "name=\(nfd)").status, 65)
        let code = bk("add", "Customer", "name=Nut", "code=Ko\u{308}ln")
        XCTAssertEqual(code.stderr, "bookkeeper: Customer.code \"Ko\u{308}ln\" already exists "
                       + "(as \"K\u{F6}ln\", the same text in another Unicode normal form)\n")
        XCTAssertEqual(try storedNames(), [hex(nfc), hex("Bolt")])
        // Command-line look-ups find the stored object whatever the form typed.
        XCTAssertTrue(ok("show", "Customer", nfd).hasPrefix("id      Customer/1\n"))
        XCTAssertEqual(ok("set", "Customer", nfd, "info=x"), "updated Customer/1\n")
        ok("add", "Order", "number=A-1", "customer=\(nfd)")
        XCTAssertEqual(try query("SELECT customer_id FROM \"Order\""), ["1"])
        XCTAssertEqual(bk("delete", "Customer", nfd).status, 65, "Deny: the customer has an order (found, not missing)")
    }

    func testANameSpeltLikeAnObjectIDWasTakenAsTheID() throws {
        ok("init")
        ok("add", "Customer", "name=Acme")                                   // Customer/1
        XCTAssertEqual(ok("add", "Customer", "name=Customer/3"), "Customer/2\n")
        // Before: "Customer/3 not found" (66), though a customer has that name.
        XCTAssertTrue(ok("show", "Customer", "Customer/3").hasPrefix("id      Customer/2\nname    Customer/3\n"))
        XCTAssertEqual(ok("set", "Customer", "Customer/3", "info=x"), "updated Customer/2\n")
        ok("add", "Order", "number=A-1", "customer=Customer/3")
        XCTAssertEqual(try query("SELECT customer_id FROM \"Order\""), ["2"])
        // Import and export take it as the key, as before.
        XCTAssertTrue(ok("export", "Order").contains("A-1,"))
        XCTAssertTrue(ok("export", "Order").contains(",Customer/3"))
        // A name that is also another object's ID: refused as ambiguous, naming both, and how to name either.
        ok("add", "Customer", "name=Customer/1")                             // Customer/3
        for command in [["show", "Customer", "Customer/1"], ["set", "Customer", "Customer/1", "info=y"],
                        ["delete", "Customer", "Customer/1"]] {
            let r = bk(command)
            XCTAssertEqual(r.status, 64, "\(command)")
            XCTAssertEqual(r.stderr, "bookkeeper: Customer \"Customer/1\" is ambiguous: it is the object ID of Customer/1 and "
                           + "the name of Customer/3 — name the one you mean otherwise: \"Acme\" or Customer/3\n")
        }
        let reference = bk("add", "Order", "number=A-2", "customer=Customer/1")
        XCTAssertEqual(reference.status, 64)
        XCTAssertTrue(reference.stderr.hasPrefix("bookkeeper: Order.customer: Customer \"Customer/1\" is ambiguous"), reference.stderr)
        XCTAssertEqual(try query("SELECT count(*) FROM Customer"), ["3"], "nothing was deleted")
        // Either is named otherwise; a name that is its own object's ID is no ambiguity.
        XCTAssertTrue(ok("show", "Customer", "Acme").hasPrefix("id      Customer/1\n"))
        XCTAssertEqual(bk("show", "Customer", "Customer/3").status, 64, "now Customer/2's name and Customer/3's ID")
        XCTAssertTrue(ok("show", "Customer", "Customer/2").hasPrefix("id      Customer/2\n"))
        ok("add", "Customer", "name=Customer/4")                             // Customer/4, its own ID
        XCTAssertTrue(ok("show", "Customer", "Customer/4").hasPrefix("id      Customer/4\n"))
        // An ID no name matches is the ID; one nothing matches is still "not found".
        XCTAssertEqual(ok("set", "Customer", "Customer/2", "info=z"), "updated Customer/2\n")
        XCTAssertTrue(ok("show", "Order", "Order/1").hasPrefix("id        Order/1\n"))
        let missing = bk("show", "Customer", "Customer/9")
        XCTAssertEqual(missing.status, 66)
        XCTAssertEqual(missing.stderr, "bookkeeper: Customer/9 not found\n")
    }

    // MARK: Property

    /// Generated keys with accented letters — Latin, Vietnamese with stacked marks, Hangul (which decomposes into
    /// jamo) — each spelt at random in NFC, NFD or a mix, imported as directory rows (upsert by key, over two
    /// files so that both the batch's own caches and the store are asked) and as references with
    /// --create-missing: the store ends with one customer per NFC-distinct key, in the spelling first given;
    /// `add` of an NFC-equal key is refused with the did-you-mean; `show` finds it by either form.
    func testEveryNormalFormOfAKeyIsOneObject() throws {
        // Each letter in the forms it may be typed in (the first is NFC).
        let letters: [[String]] = [
            ["\u{E9}", "e\u{301}"], ["\u{F6}", "o\u{308}"], ["\u{F1}", "n\u{303}"], ["\u{C5}", "A\u{30A}"],
            ["\u{1EC7}", "e\u{323}\u{302}", "\u{1EB9}\u{302}"], ["\u{1EDF}", "o\u{31B}\u{309}", "\u{1A1}\u{309}"],
            ["\u{1EEF}", "u\u{31B}\u{303}", "\u{1B0}\u{303}"], ["\u{1EA5}", "a\u{302}\u{301}", "\u{E2}\u{301}"],
            ["\u{D55C}", "\u{1112}\u{1161}\u{11AB}", "\u{D558}\u{11AB}"], ["\u{AD6D}", "\u{1100}\u{116E}\u{11A8}"],
            ["\u{AC00}", "\u{1100}\u{1161}"],
            ["a"], ["r"], ["t"],
        ]
        let seed = Trials.seed(fixed: 2424)
        var g = SeededGenerator(seed: seed)
        let trials = Trials.count("BOOKKEEPER_KEYFORM_TRIALS", quick: 2, stress: 30)
        var lines = 0
        for trial in 0..<trials {
            dir = TemporaryDirectory()
            ok("init")
            // Keys as lists of letter indices; distinct after NFC by construction (distinct index lists, and no
            // letter's forms are another's).
            var keys: [[Int]] = []
            while keys.count < 8 {
                let k = [g.next(upTo: 11)] + (0..<(1 + g.next(upTo: 4))).map { _ in g.next(upTo: letters.count) }
                if !keys.contains(k) { keys.append(k) }
            }
            func spelling(_ k: [Int]) -> String {
                switch g.next(upTo: 3) {
                case 0: return k.map { letters[$0][0] }.joined()
                case 1: return k.map { letters[$0].last! }.joined()
                default: return k.map { letters[$0][g.next(upTo: letters[$0].count)] }.joined()
                }
            }
            var first: [Int: String] = [:]   // key number → the spelling first given
            var order: [Int] = []            // key numbers in the order the store got them
            func give(_ n: Int) -> String {
                let s = spelling(keys[n])
                if first[n] == nil { first[n] = s; order.append(n) }
                return s
            }
            // Two directory files and an orders file with references, in a random order.
            var steps = [0, 1, 2].shuffled(using: &g)
            if g.next(upTo: 2) == 0 { steps.removeAll { $0 == 1 } }
            for step in steps {
                var text = step == 2 ? "number,customer\n" : "name\n"
                for i in 0..<12 {
                    let n = g.next(upTo: keys.count)
                    text += step == 2 ? "T\(trial)-\(i),\(give(n))\n" : "\(give(n))\n"
                    lines += 1
                }
                let file = csv("step\(step).csv", text)
                ok("import", step == 2 ? "Order" : "Customer", file, "--create-missing", "--quiet")
            }
            XCTAssertEqual(try storedNames(), order.map { hex(first[$0]!) }, "trial \(trial), seed \(seed)")
            // Every stored key: add refuses another form of it with the did-you-mean; show finds it by any form.
            for (position, n) in order.enumerated() {
                let stored = first[n]!
                let other = spelling(keys[n])
                let r = bk("add", "Customer", "name=\(other)")
                XCTAssertEqual(r.status, 65, "trial \(trial), seed \(seed)")
                let expected = hex(other) == hex(stored) ? "(Customer/\(position + 1))"
                    : "(as \"\(stored)\", the same text in another Unicode normal form)"
                XCTAssertEqual(r.stderr, "bookkeeper: Customer.name \"\(other)\" already exists \(expected)\n")
                for form in [keys[n].map { letters[$0][0] }.joined(), keys[n].map { letters[$0].last! }.joined()] {
                    XCTAssertTrue(ok("show", "Customer", form).hasPrefix("id      Customer/\(position + 1)\n"),
                                  "trial \(trial), seed \(seed)")
                }
            }
            XCTAssertEqual(try query("SELECT count(*) FROM Customer"), ["\(order.count)"])
        }
        reportTrials("KeyFormTests", "\(trials) stores, \(lines) lines (seed \(seed))")
    }
}
