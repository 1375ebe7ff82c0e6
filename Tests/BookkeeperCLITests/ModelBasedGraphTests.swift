// Issue 14: a stateful, model-based test. Seeded random sequences of CLI commands — add, set with =, += and -=,
// delete, import (abort and skip, documents' lines sometimes apart, the rejects file checked and imported again),
// migrate to a grown model, export then import into a fresh store — run against the built binary over a
// model with every relationship kind the CLI can change (to-one, to-many, many-to-many, built-in and from a model
// file), the delete rules Nullify, Deny and Cascade, a rule spanning a document and its rows, and rules that look
// two and three relationships deep (a customer's orders' rows, a tag's customers' orders, a region's customers'
// orders' rows, a row's order's customer's region: issue 26). An in-memory
// reference of the object graph predicts each command. After every command: the command succeeded exactly when
// the reference says it must; the store's objects and links equal the reference; `check` is clean; and a failed
// command changed nothing. A failure prints the seed and the shortest command sequence that still fails.
//
// `make test` runs a few hundred steps; `make stress` many thousands (GRAPH_STEPS, STRESS_SEED repeats a run).

import Foundation
import TestSupport
import XCTest

/// The object graph as the reference sees it.
struct GraphReference: Equatable {
    var customers: [String: (tags: Set<String>, region: String?)] = [:]
    var tags: Set<String> = []
    var services: Set<String> = []
    var regions: Set<String> = []
    /// Order number → customer, and rows as (service, sum in cents) in row order.
    var orders: [String: (customer: String?, total: Int, rows: [(String, Int)])] = [:]

    static func == (a: GraphReference, b: GraphReference) -> Bool { a.dump == b.dump }

    /// A canonical text of the graph, compared with the store's.
    var dump: String {
        var lines: [String] = []
        for (name, c) in customers.sorted(by: { $0.key < $1.key }) {
            lines.append("Customer \(name) tags=\(c.tags.sorted().joined(separator: ",")) region=\(c.region ?? "")")
        }
        for t in tags.sorted() { lines.append("Tag \(t)") }
        for s in services.sorted() { lines.append("Service \(s)") }
        for r in regions.sorted() { lines.append("Region \(r)") }
        for (number, o) in orders.sorted(by: { $0.key < $1.key }) {
            let rows = o.rows.map { "\($0.0):\($0.1)" }.joined(separator: ",")
            lines.append("Order \(number) customer=\(o.customer ?? "") total=\(o.total) rows=\(rows)")
        }
        return lines.joined(separator: "\n")
    }

    func ordersOf(_ customer: String) -> [String] { orders.filter { $0.value.customer == customer }.map(\.key).sorted() }

    /// Whether the graph breaks one of the model's rules that look through two or three relationships — on a
    /// customer, a tag, a region or a row — wherever the change that broke it was made.
    var breaksDeepRule: Bool {
        func rows(ofCustomers names: Set<String>) -> [(String, Int)] {
            orders.values.filter { $0.customer.map(names.contains) ?? false }.flatMap(\.rows)
        }
        // Customer: orders.rows.@sum.sum <= 6.00
        for name in customers.keys where rows(ofCustomers: [name]).reduce(0, { $0 + $1.1 }) > 600 { return true }
        // Region: customers.orders.rows.@count <= 2
        for region in regions where rows(ofCustomers: Set(customers.filter { $0.value.region == region }.keys)).count > 2 { return true }
        // Tag: customers.orders.@count <= 1
        for tag in tags {
            let tagged = Set(customers.filter { $0.value.tags.contains(tag) }.keys)
            if orders.values.filter({ $0.customer.map(tagged.contains) ?? false }).count > 1 { return true }
        }
        // OrderRow: order.customer.region.name != "R2" OR sum <= 2.00
        for o in orders.values {
            if let c = o.customer, customers[c]?.region == "R2", o.rows.contains(where: { $0.1 > 200 }) { return true }
        }
        return false
    }
}

/// One command: its arguments (and a CSV file it imports), and what the reference becomes: nil when it must be
/// refused and change nothing; with `fails`, a non-zero exit that still changes the graph (an import with
/// `--on-error skip` that rejected a document keeps the others).
struct GraphCommand: CustomStringConvertible {
    var arguments: [String]
    var file: (name: String, text: String)?
    var expected: GraphReference?
    var fails = false

    var description: String {
        let shown = arguments.map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")
        if let file { return "\(shown)   # \(file.name): \(file.text.replacingOccurrences(of: "\n", with: "⏎"))" }
        return shown
    }
}

final class ModelBasedGraphTests: XCTestCase {
    /// The document-rows rule of `GraphConsistencyTests`, plus a model-file directory with a to-one/to-many pair, and
    /// rules that look two and three relationships deep (issue 26), which the reference evaluates too
    /// (`GraphReference.breaksDeepRule`): every change on their paths must have them checked again.
    static let model = GraphConsistencyTests.ruleModel + """

          Region:
            kind: directory
            attributes:
              name: { type: string, required: true }
            rules:
              - { where: "customers.orders.rows.@count <= 2", message: "more than 2 rows in the region" }
          Tag:
            rules:
              - { where: "customers.orders.@count <= 1", message: "more than 1 order of the tag's customers" }
          OrderRow:
            rules:
              - { where: 'order.customer.region.name != "R2" OR sum <= 2.00', message: "a row over 2.00 in region R2" }
          Customer:
            relationships:
              region: { to: Region, inverse: customers, delete: nullify }
            rules:
              - { where: "orders.rows.@sum.sum <= 6.00", message: "its orders' rows sum to more than 6.00" }
        """

    func testRandomCommandSequencesKeepTheGraphEqualToTheReference() throws {
        // `make test`: 40 steps (one migration to the grown model at step 24, the export round trip at the last) from a fixed seed; `make stress`: 3,000
        // from the seed it prints.
        let seed = Trials.seed(fixed: 20_261_126)
        let steps = Trials.count("GRAPH_STEPS", quick: 40, stress: 3_000)
        var generator = GraphGenerator(seed: seed)
        var commands: [GraphCommand] = []
        var reference = GraphReference()
        for _ in 0..<steps {
            let command = generator.next(reference)
            commands.append(command)
            if let expected = command.expected { reference = expected }
        }
        if let failure = Self.replay(commands) {
            print("model-based graph test: seed \(seed) failed at step \(failure.step + 1): \(failure.message)\nshrinking…")
            let shortest = Self.shrink(commands, failingAt: failure.step)
            XCTFail("""
                seed \(seed): step \(failure.step + 1): \(failure.message)
                shortest sequence that fails (\(shortest.count) commands; STRESS_SEED=\(seed) repeats the run):
                \(shortest.enumerated().map { "  \($0.offset + 1). bookkeeper \($0.element)" }.joined(separator: "\n"))
                """)
            return
        }
        reportTrials("model-based graph", "seed \(seed), \(steps) commands (\(commands.filter { $0.expected == nil }.count) refused, \(commands.filter(\.fails).count) kept part of an import), store, check and reference agreed after each")
    }

    /// Runs the commands on a fresh store; the first step that disagrees with the reference, if any.
    static func replay(_ commands: [GraphCommand]) -> (step: Int, message: String)? {
        let dir = TemporaryDirectory("bookkeeper-graph")
        let model = dir.write("model.yaml", ModelBasedGraphTests.model)
        let store = dir.file("books.sqlite")
        func run(_ args: [String], store: String = store) -> CLIResult {
            runCLI(["--store", store, "--model", model] + args, in: dir.path)
        }
        guard run(["init"]).status == 0 else { return (0, "init failed") }
        var reference = GraphReference()
        var migrations = 0
        for (step, command) in commands.enumerated() {
            if let file = command.file { dir.write(file.name, file.text) }
            let beforeGraph = try? storeGraph(store)
            let before = beforeGraph?.dump ?? "?"
            let r = run(command.arguments)
            if let expected = command.expected, command.fails {
                guard r.status == 65 else { return (step, "expected status 65 with the good documents kept, got \(r.status): \(r.stderr)") }
                reference = expected
                if let problem = checkRejects(command, before: beforeGraph, dir: dir, run: { run($0) }) { return (step, problem) }
            } else if let expected = command.expected {
                guard r.status == 0 else { return (step, "expected success, got \(r.status): \(r.stderr)") }
                reference = expected
            } else {
                guard r.status != 0 else { return (step, "expected a refusal, but it succeeded: \(r.stdout)") }
                guard r.stderr.hasPrefix("bookkeeper: "), !r.stderr.contains("Fatal error") else { return (step, "not a one-line refusal: \(r.stderr)") }
                let after = (try? storeDump(store)) ?? "?"
                guard after == before else { return (step, "a refused command changed the store:\n\(before)\n---\n\(after)") }
            }
            let actual = (try? storeDump(store)) ?? "?"
            guard actual == reference.dump else {
                return (step, "the store differs from the reference:\nstore:\n\(actual)\nreference:\n\(reference.dump)")
            }
            let check = run(["check"])
            guard check.status == 0 else { return (step, "check found a problem: \(check.stderr)") }
            // Now and then the model grows an attribute and the store is migrated: the graph must stay as it was.
            if step % 50 == 24 {
                migrations += 1
                let notes = (1...migrations).map { "      note\($0): { type: string }\n" }.joined()
                dir.write("model.yaml", ModelBasedGraphTests.model + "\n    attributes:\n" + notes)
                let m = run(["migrate"])
                guard m.status == 0 else { return (step, "migrate failed: \(m.stderr)") }
                guard (try? storeDump(store)) == reference.dump else { return (step, "migrate changed the graph") }
                guard run(["check"]).status == 0 else { return (step, "check failed after migrate") }
            }
            // Now and then: export every entity and import into a fresh store; the same graph must come back.
            if step % 50 == 49 || step == commands.count - 1 {
                let copy = dir.file("copy-\(step).sqlite")
                guard run(["init"], store: copy).status == 0 else { return (step, "init of the copy failed") }
                for entity in ["Region", "Tag", "Service", "Customer", "Order"] {
                    let file = dir.file("\(entity)-\(step).csv")
                    let e = run(["export", entity, file])
                    guard e.status == 0 else { return (step, "export \(entity) failed: \(e.stderr)") }
                    let i = run(["import", entity, file], store: copy)
                    guard i.status == 0 else { return (step, "import \(entity) into a fresh store failed: \(i.stderr)") }
                }
                let copied = (try? storeDump(copy)) ?? "?"
                guard copied == actual else { return (step, "export then import gave another graph:\n\(copied)\nexpected:\n\(actual)") }
            }
        }
        return nil
    }

    /// After an import with --on-error skip that refused documents: the rejects file holds every line of each
    /// refused document, in file order, with a reason; imported again unchanged it is refused again and changes
    /// nothing (its reason column is ignored).
    static func checkRejects(_ command: GraphCommand, before: GraphReference?, dir: TemporaryDirectory,
                             run: ([String]) -> CLIResult) -> String? {
        guard let file = command.file, command.arguments.contains("rejects.csv") else { return nil }
        guard let stored = before else { return "cannot read the graph before the import" }
        let refused = GraphGenerator.judgeImport(file.text, in: stored).refused
        let expected = file.text.split(separator: "\n").dropFirst().filter { refused.contains(String($0.prefix { $0 != "," })) }
        guard let text = try? String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8) else { return "no rejects file" }
        let lines = text.split(separator: "\n")
        guard lines.first == "number,customer,total,rows.service,rows.sum,reason" else { return "rejects header: \(lines.first ?? "")" }
        // Each line as it was read, then its reason (quoted when it has a comma or a quote).
        let given = lines.dropFirst().map { line -> Substring in
            var fields = 0, i = line.startIndex
            while i < line.endIndex, fields < 5 { if line[i] == "," { fields += 1 }; if fields < 5 { i = line.index(after: i) } }
            return line[..<i]
        }
        guard given == Array(expected) else { return "rejects file lines \(given) are not the refused documents' lines \(expected)" }
        dir.write("again.csv", text)
        let again = run(["import", "Order", "again.csv", "--on-error", "skip"])
        let after = (try? storeDump(dir.file("books.sqlite"))) ?? "?"
        guard again.status == 65, after == command.expected!.dump else {
            return "the rejects file imported again: status \(again.status) \(again.stderr); changed the store: \(after != command.expected!.dump)"
        }
        return nil
    }

    /// A short subsequence that still fails: chunks of commands are removed while the failure stays (ddmin),
    /// within a budget of replays (GRAPH_SHRINK_REPLAYS, 60). The reference is recomputed for each candidate,
    /// so every kept command keeps a prediction that is right.
    static func shrink(_ commands: [GraphCommand], failingAt step: Int) -> [GraphCommand] {
        var current = Array(commands.prefix(step + 1))
        var budget = environmentInt("GRAPH_SHRINK_REPLAYS", 60)
        var chunk = max(current.count / 2, 1)
        while chunk >= 1 && budget > 0 {
            var start = 0
            var removedAny = false
            while start < current.count - 1 && budget > 0 {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, current.count - 1))
                budget -= 1
                if let rebuilt = GraphGenerator.repredict(candidate), let failure = replay(rebuilt) {
                    current = Array(rebuilt.prefix(failure.step + 1))
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny { chunk /= 2 }
        }
        return current
    }

    /// The store's graph in the reference's canonical text.
    static func storeDump(_ store: String) throws -> String { try storeGraph(store).dump }

    static func storeGraph(_ store: String) throws -> GraphReference {
        var reference = GraphReference()
        for name in try queryStore(store, "SELECT name FROM Tag").compactMap({ $0 }) { reference.tags.insert(name) }
        for name in try queryStore(store, "SELECT name FROM Service").compactMap({ $0 }) { reference.services.insert(name) }
        for name in try queryStore(store, "SELECT name FROM Region").compactMap({ $0 }) { reference.regions.insert(name) }
        let customers = try queryStore(store, """
            SELECT c.name || char(9) || coalesce(r.name, '') || char(9) || coalesce((SELECT group_concat(t.name, ',') FROM Customer_tags j \
            JOIN Tag t ON t.id = j.Tag_id WHERE j.Customer_id = c.id), '') FROM Customer c LEFT JOIN Region r ON r.id = c.region_id
            """)
        for line in customers.compactMap({ $0 }) {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            reference.customers[f[0]] = (Set(f[2].split(separator: ",").map(String.init)), f[1].isEmpty ? nil : f[1])
        }
        // (Rows in row-ID order, assembled here: group_concat's order over a join is not defined.)
        let orders = try queryStore(store, """
            SELECT o.number || char(9) || coalesce(c.name, '') || char(9) || o.total FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
            """)
        for line in orders.compactMap({ $0 }) {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            reference.orders[f[0]] = (f[1].isEmpty ? nil : f[1], Int(f[2])!, [])
        }
        let rows = try queryStore(store, """
            SELECT o.number || char(9) || s.name || char(9) || r.sum FROM OrderRow r JOIN "Order" o ON o.id = r.order_id \
            JOIN Service s ON s.id = r.service_id ORDER BY r.id
            """)
        for line in rows.compactMap({ $0 }) {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            reference.orders[f[0]]?.rows.append((f[1], Int(f[2])!))
        }
        return reference
    }
}

/// Makes random commands with the reference's prediction for each.
struct GraphGenerator {
    var random: SeededGenerator
    var imports = 0

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    static let customers = ["C1", "C2", "C3", "C4", "C5"]
    static let tags = ["T1", "T2", "T3"]
    static let services = ["S1", "S2", "S3"]
    static let regions = ["R1", "R2"]
    static let orders = ["O1", "O2", "O3", "O4", "O5"]

    static func cents(_ n: Int) -> String { String(format: "%d.%02d", n / 100, n % 100) }

    /// The same commands with their predictions made again from the start (after the shrinker removed some).
    static func repredict(_ commands: [GraphCommand]) -> [GraphCommand]? {
        var reference = GraphReference()
        var out: [GraphCommand] = []
        for c in commands {
            var copy = c
            (copy.expected, copy.fails) = predict(c.arguments, file: c.file?.text, in: reference)
            if let e = copy.expected { reference = e }
            out.append(copy)
        }
        return out
    }

    mutating func next(_ ref: GraphReference) -> GraphCommand {
        let c = random.pick(Self.customers), t = random.pick(Self.tags), s = random.pick(Self.services)
        let o = random.pick(Self.orders), r = random.pick(Self.regions)
        var args: [String]
        var file: (name: String, text: String)?
        // Adds a third of the time while the graph is small, so that later commands find objects to work on.
        let small = ref.customers.count + ref.orders.count + ref.tags.count + ref.services.count < 8
        // Objects that exist, for the commands that move things along the deep rules' key paths (cases 17–23).
        func existing(_ keys: [String], else fallback: String) -> String { keys.isEmpty ? fallback : random.pick(keys.sorted()) }
        switch small && random.next(upTo: 3) == 0 ? random.next(upTo: 5) : random.next(upTo: 31) {
        case 0: args = ["add", "Tag", "name=\(t)"] + (random.next(upTo: 2) == 0 ? ["customers=\(c)"] : [])
        case 1: args = ["add", "Service", "name=\(s)"]
        case 2: args = ["add", "Region", "name=\(r)"]
        case 3:
            args = ["add", "Customer", "name=\(c)"]
            if random.next(upTo: 2) == 0 { args.append("tags=\(t)") }
            if random.next(upTo: 2) == 0 { args.append("orders=\(o)") }
            if random.next(upTo: 3) == 0 { args.append("region=\(r)") }
        case 4: args = ["add", "Order", "number=\(o)"] + (random.next(upTo: 2) == 0 ? ["customer=\(c)"] : [])
        case 5: args = ["set", "Order", o, random.next(upTo: 4) == 0 ? "customer=" : "customer=\(c)"]
        case 6: args = ["set", "Customer", c, "orders+=\(o)"]
        case 7: args = ["set", "Customer", c, "orders-=\(o)"]
        case 8: args = ["set", "Customer", c, random.pick(["tags+=\(t)", "tags-=\(t)", "tags=\(t)", "tags="])]
        case 9: args = ["set", "Tag", t, random.pick(["customers+=\(c)", "customers-=\(c)"])]
        case 10: args = ["set", "Customer", c, random.pick(["region=\(r)", "region="])]
        case 11: args = ["set", "Region", r, random.pick(["customers+=\(c)", "customers-=\(c)"])]
        case 12: args = ["delete", "Customer", c]
        case 13: args = ["delete", random.pick(["Tag", "Service", "Region"]), random.pick([t, s, r])]
        case 14: args = ["delete", "Order", o]
        case 15:
            let sum = ref.orders[o].map { o in o.rows.reduce(0) { $0 + $1.1 } } ?? 0
            args = ["set", "Order", o, "total=\(Self.cents(sum + (random.next(upTo: 3) == 0 ? 100 : 0)))"]
        case 16: args = ["add", "OrderRow", "order=\(o)", "service=\(s)", "sum=0"]
        case 17, 21:
            args = ["set", "Order", existing(Array(ref.orders.keys), else: o), "customer=\(existing(Array(ref.customers.keys), else: c))"]
        case 18:
            let withCustomer = ref.orders.filter { $0.value.customer != nil }.map(\.key)
            args = ["add", "OrderRow", "order=\(existing(withCustomer, else: o))", "service=\(existing(Array(ref.services), else: s))", "sum=0"]
        case 19: args = ["set", "Customer", existing(Array(ref.customers.keys), else: c), "region=\(existing(Array(ref.regions), else: r))"]
        case 20: args = ["set", "Customer", existing(Array(ref.customers.keys), else: c), "tags+=\(existing(Array(ref.tags), else: t))"]
        case 22: args = ["add", "Customer", "name=\(c)", "region=\(existing(Array(ref.regions), else: r))"]
        case 23: args = ["add", "OrderRow", "order=\(existing(Array(ref.orders.keys), else: o))", "service=\(existing(Array(ref.services), else: s))", "sum=0"]
        default:
            // A document import: one to three orders, their rows; now and then a wrong total, a missing service
            // or customer; with --on-error skip half the time.
            imports += 1
            var lines: [String] = []
            var numbers = Self.orders
            // Mostly customers and services that exist, so that most documents reach the store and its rule.
            let customers = ref.customers.keys.sorted()
            let services = ref.services.isEmpty || random.next(upTo: 4) == 0 ? Self.services : ref.services.sorted()
            for _ in 0..<(1 + random.next(upTo: 3)) {
                let number = numbers.remove(at: random.next(upTo: numbers.count))
                let customer = random.next(upTo: 4) == 0 ? random.pick(Self.customers)
                    : customers.isEmpty || random.next(upTo: 3) == 0 ? "" : random.pick(customers)
                let rows = (0..<random.next(upTo: 3)).map { _ in (random.pick(services), 100 * (1 + random.next(upTo: 5))) }
                var total = rows.reduce(0) { $0 + $1.1 }
                if random.next(upTo: 3) == 0 { total += 1 }
                if rows.isEmpty {
                    lines.append("\(number),\(customer),\(Self.cents(total)),,")
                }
                for row in rows { lines.append("\(number),\(customer),\(Self.cents(total)),\(row.0),\(Self.cents(row.1))") }
            }
            // Now and then an order's first line moves to the end, apart from the rest of its lines.
            if lines.count > 2, random.next(upTo: 3) == 0 { lines.append(lines.removeFirst()) }
            let text = "number,customer,total,rows.service,rows.sum\n" + lines.map { $0 + "\n" }.joined()
            file = ("import-\(imports).csv", text)
            args = ["import", "Order", file!.name] + (random.next(upTo: 2) == 0 ? ["--on-error", "skip", "--rejects", "rejects.csv"] : [])
        }
        let (expected, fails) = Self.predict(args, file: file?.text, in: ref)
        return GraphCommand(arguments: args, file: file, expected: expected, fails: fails)
    }

    /// What `args` does to `ref`: the new graph (and whether the command still exits non-zero), or nil when the
    /// command must be refused.
    static func predict(_ args: [String], file: String?, in before: GraphReference) -> (GraphReference?, Bool) {
        if args[0] == "import" { return predictImport(file ?? "", skip: args.contains("skip"), in: before) }
        // A command whose result breaks a rule anywhere, however deep, is refused.
        guard let after = predictCommand(args, in: before), !after.breaksDeepRule else { return (nil, false) }
        return (after, false)
    }

    static func predictCommand(_ args: [String], in before: GraphReference) -> GraphReference? {
        var ref = before
        func value(_ a: String) -> (key: String, op: String, value: String) {
            for op in ["+=", "-=", "="] {
                if let range = a.range(of: op) { return (String(a[..<range.lowerBound]), op, String(a[range.upperBound...])) }
            }
            return (a, "", "")
        }
        func sum(_ o: String) -> Int { ref.orders[o]?.rows.reduce(0) { $0 + $1.1 } ?? 0 }
        switch (args[0], args[1]) {
        case ("add", "Tag"):
            let name = value(args[2]).value
            guard !ref.tags.contains(name) else { return nil }
            ref.tags.insert(name)
            if args.count > 3 {
                let c = value(args[3]).value
                guard ref.customers[c] != nil else { return nil }
                ref.customers[c]!.tags.insert(name)
            }
        case ("add", "Service"):
            let name = value(args[2]).value
            guard ref.services.insert(name).inserted else { return nil }
        case ("add", "Region"):
            let name = value(args[2]).value
            guard ref.regions.insert(name).inserted else { return nil }
        case ("add", "Customer"):
            let name = value(args[2]).value
            guard ref.customers[name] == nil else { return nil }
            var customer: (tags: Set<String>, region: String?) = ([], nil)
            for a in args.dropFirst(3) {
                let (k, _, v) = value(a)
                switch k {
                case "tags": guard ref.tags.contains(v) else { return nil }; customer.tags.insert(v)
                case "region": guard ref.regions.contains(v) else { return nil }; customer.region = v
                case "orders": guard ref.orders[v] != nil else { return nil }; ref.orders[v]!.customer = name
                default: return nil
                }
            }
            ref.customers[name] = customer
        case ("add", "Order"):
            let number = value(args[2]).value
            guard ref.orders[number] == nil else { return nil }
            var customer: String?
            if args.count > 3 {
                customer = value(args[3]).value
                guard ref.customers[customer!] != nil else { return nil }
            }
            ref.orders[number] = (customer, 0, [])
        case ("add", "OrderRow"):
            let o = value(args[2]).value, s = value(args[3]).value
            guard ref.orders[o] != nil, ref.services.contains(s) else { return nil }
            ref.orders[o]!.rows.append((s, 0))
        case ("set", "Order"):
            let o = args[2]
            guard ref.orders[o] != nil else { return nil }
            let (k, _, v) = value(args[3])
            if k == "customer" {
                if v.isEmpty { ref.orders[o]!.customer = nil } else {
                    guard ref.customers[v] != nil else { return nil }
                    ref.orders[o]!.customer = v
                }
            } else {
                let cents = Int(v.replacingOccurrences(of: ".", with: ""))!
                guard cents == sum(o) else { return nil }
                ref.orders[o]!.total = cents
            }
        case ("set", "Customer"):
            let c = args[2]
            guard ref.customers[c] != nil else { return nil }
            let (k, op, v) = value(args[3])
            switch (k, op) {
            case ("orders", "+="): guard ref.orders[v] != nil else { return nil }; ref.orders[v]!.customer = c
            case ("orders", "-="):
                guard ref.orders[v] != nil else { return nil }
                if ref.orders[v]!.customer == c { ref.orders[v]!.customer = nil }
            case ("tags", "+="): guard ref.tags.contains(v) else { return nil }; ref.customers[c]!.tags.insert(v)
            case ("tags", "-="): guard ref.tags.contains(v) else { return nil }; ref.customers[c]!.tags.remove(v)
            case ("tags", "="):
                if v.isEmpty { ref.customers[c]!.tags = [] } else {
                    guard ref.tags.contains(v) else { return nil }
                    ref.customers[c]!.tags = [v]
                }
            case ("region", "="):
                if v.isEmpty { ref.customers[c]!.region = nil } else {
                    guard ref.regions.contains(v) else { return nil }
                    ref.customers[c]!.region = v
                }
            default: return nil
            }
        case ("set", "Tag"):
            let t = args[2]
            guard ref.tags.contains(t) else { return nil }
            let (_, op, c) = value(args[3])
            guard ref.customers[c] != nil else { return nil }
            if op == "+=" { ref.customers[c]!.tags.insert(t) } else { ref.customers[c]!.tags.remove(t) }
        case ("set", "Region"):
            let r = args[2]
            guard ref.regions.contains(r) else { return nil }
            let (_, op, c) = value(args[3])
            guard ref.customers[c] != nil else { return nil }
            if op == "+=" { ref.customers[c]!.region = r } else if ref.customers[c]!.region == r { ref.customers[c]!.region = nil }
        case ("delete", "Customer"):
            let c = args[2]
            guard ref.customers[c] != nil, ref.ordersOf(c).isEmpty else { return nil }   // Deny while it has orders
            ref.customers[c] = nil
        case ("delete", "Tag"):
            guard ref.tags.remove(args[2]) != nil else { return nil }
            for k in ref.customers.keys { ref.customers[k]!.tags.remove(args[2]) }
        case ("delete", "Service"):
            let s = args[2]
            guard ref.services.contains(s), !ref.orders.values.contains(where: { $0.rows.contains { $0.0 == s } }) else { return nil }
            ref.services.remove(s)
        case ("delete", "Region"):
            guard ref.regions.remove(args[2]) != nil else { return nil }
            for k in ref.customers.keys where ref.customers[k]!.region == args[2] { ref.customers[k]!.region = nil }
        case ("delete", "Order"):
            guard ref.orders[args[2]] != nil else { return nil }   // its rows cascade
            ref.orders[args[2]] = nil
        default:
            return nil
        }
        return ref
    }

    /// A document import: an order's lines wherever they are in the file (the generator sometimes moves one apart);
    /// a document is refused when a line names a missing customer or service, its lines disagree, or its total is
    /// not the sum of all its rows.
    /// With abort any refusal refuses the import; with skip the good documents are kept and the command still
    /// fails (65) when any was refused.
    static func predictImport(_ text: String, skip: Bool, in before: GraphReference) -> (GraphReference?, Bool) {
        let judged = judgeImport(text, in: before)
        // The documents kept, with all their rows, breaking a rule beyond the document (a customer's, a region's,
        // a row's through its customer): nothing is imported, with skip too (the batch checks every rule at the end).
        if judged.ref.breaksDeepRule { return (nil, true) }
        if judged.refused.isEmpty { return (judged.ref, false) }
        // With skip and a refused document the command fails (65) but keeps the rest.
        return skip ? (judged.ref, true) : (nil, true)
    }

    /// The graph after importing the good documents of `text`, and the numbers of those refused.
    static func judgeImport(_ text: String, in before: GraphReference) -> (ref: GraphReference, refused: Set<String>) {
        var ref = before
        var groups: [(number: String, lines: [[String]])] = []
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if let i = groups.firstIndex(where: { $0.number == f[0] }) { groups[i].lines.append(f) } else { groups.append((f[0], [f])) }
        }
        var refused: Set<String> = []
        for group in groups {
            let first = group.lines[0]
            let customer = first[1].isEmpty ? nil : first[1]
            let total = Int(first[2].replacingOccurrences(of: ".", with: ""))!
            let rows = group.lines.filter { !$0[3].isEmpty }.map { ($0[3], Int($0[4].replacingOccurrences(of: ".", with: ""))!) }
            var ok = customer.map { ref.customers[$0] != nil } ?? true
            ok = ok && rows.allSatisfy { ref.services.contains($0.0) }
            ok = ok && group.lines.allSatisfy { $0[1] == first[1] && $0[2] == first[2] }
            // The file's rows replace the order's rows; its rule is about all of them.
            ok = ok && total == rows.reduce(0) { $0 + $1.1 }
            guard ok else {
                refused.insert(group.number)
                continue
            }
            ref.orders[group.number] = (customer, total, rows)
        }
        return (ref, refused)
    }
}
