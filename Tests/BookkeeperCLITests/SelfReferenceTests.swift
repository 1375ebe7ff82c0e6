import Foundation
import XCTest
import TestSupport

/// An object pointing at an object of its own kind (an employee's boss): an import resolves a key its file gives on
/// the same line or a later one, so export then import gives the same store (issue 25 §1).
final class SelfReferenceTests: ImportTestCase {
    static let model = """
        entities:
          Emp:
            kind: directory
            attributes:
              name: { type: string }
              n: { type: integer }
            relationships:
              boss: { to: Emp, inverse: reports }
        """

    override func setUp() {
        super.setUp()
        dir.write("model.yaml", Self.model)
    }

    /// The store's rows as `id name boss-id`, in ID order.
    func rows(_ path: String? = nil) throws -> [String?] {
        try queryStore(path ?? store, "SELECT id || ' ' || name || ' ' || ifnull(boss_id, '-') FROM Emp ORDER BY id")
    }

    /// Each object's name and its boss's, by name.
    func links() throws -> [String?] {
        try queryStore(store, "SELECT e.name || '>' || ifnull(b.name, '-') FROM Emp e LEFT JOIN Emp b ON b.id = e.boss_id ORDER BY e.name")
    }

    /// Exports the store, imports the export into a new store, and checks both hold the same rows.
    func assertRoundTrips(file: StaticString = #filePath, line: UInt = #line) throws {
        let exported = ok("export", "Emp")
        dir.write("export.csv", exported)
        let second = dir.file("second.sqlite")
        let r = runCLI(["--store", second, "init", "--quiet"], in: dir.path)
        XCTAssertEqual(r.status, 0, "\(r)", file: file, line: line)
        let i = runCLI(["--store", second, "import", "Emp", "export.csv"], in: dir.path)
        XCTAssertEqual(i.status, 0, "\(i)", file: file, line: line)
        XCTAssertEqual(try rows(second), try rows(), "the same objects, IDs and links", file: file, line: line)
        XCTAssertEqual(runCLI(["--store", second, "export", "Emp"], in: dir.path).stdout, exported, file: file, line: line)
    }

    func testAnObjectThatIsItsOwnBossRoundTrips() throws {
        ok("init")
        ok("add", "Emp", "name=C", "boss=C")
        XCTAssertEqual(try rows(), ["1 C 1"])
        try assertRoundTrips()
    }

    func testABossOnALaterLineRoundTrips() throws {
        ok("init")
        // Stored in this order, each but the first pointing at one stored after it (set afterwards).
        for name in ["A", "B", "C", "D"] { ok("add", "Emp", "name=\(name)") }
        ok("set", "Emp", "A", "boss=D")
        ok("set", "Emp", "B", "boss=C")
        ok("set", "Emp", "C", "boss=A")
        XCTAssertEqual(ok("export", "Emp"), "name,n,boss\nA,,D\nB,,C\nC,,A\nD,,\n")
        try assertRoundTrips()
    }

    func testAFileWhoseBossesComeLaterImportsAsAddAndSetMakeIt() throws {
        ok("init")
        let out = ok("import", "Emp", csv("e.csv", "name,boss\nA,B\nB,C\nC,C\nD,\n"))
        XCTAssertTrue(out.contains("4 inserted"), out)
        XCTAssertEqual(try rows(), ["1 A 2", "2 B 3", "3 C 3", "4 D -"])
        // The same file again changes nothing.
        let again = ok("import", "Emp", "e.csv")
        XCTAssertTrue(again.contains("0 inserted, 0 updated, 4 unchanged"), again)
        // A boss given later to an object stored without one is an update.
        let changed = ok("import", "Emp", csv("f.csv", "name,boss\nD,E\nE,\n"))
        XCTAssertTrue(changed.contains("1 inserted, 1 updated, 0 unchanged"), changed)
        XCTAssertEqual(try rows(), ["1 A 2", "2 B 3", "3 C 3", "4 D 5", "5 E -"])
    }

    func testABossNeitherStoredNorInTheFileIsStillAnErrorAtItsPlace() throws {
        ok("init")
        let r = bk("import", "Emp", csv("e.csv", "name,boss\nA,B\nB,Z\n"))
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("e.csv:3:3: column \"boss\": Emp with name \"Z\" not found"), r.stderr)
        XCTAssertTrue(r.stderr.contains("(--create-missing creates it)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("\"B\" not found"), r.stderr)
        XCTAssertEqual(try rows(), [])
        // With --create-missing the missing one is made, after the file's own.
        ok("import", "Emp", "e.csv", "--create-missing")
        XCTAssertEqual(try rows(), ["1 A 2", "2 B 3", "3 Z -"])
    }

    func testAPlaceholderFilledByALaterLineIsNoConflict() throws {
        ok("init")
        let r = bk("import", "Emp", csv("c.csv", "name,boss\nC,C\n"), "--create-missing")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertFalse(r.stderr.contains("given earlier"), r.stderr)
        XCTAssertEqual(try rows(), ["1 C 1"])
        // With --on-conflict last, no conflict is claimed: the file has none.
        for options in [["--on-conflict", "last"], ["--on-error", "skip"], ["--on-error", "skip", "--on-conflict", "last"]] {
            removeStore()
            ok("init")
            let r = bk(["import", "Emp", csv("d.csv", "name,boss\nA,B\nB,\nC,C\n"), "--create-missing"] + options)
            XCTAssertEqual(r.status, 0, "\(options): \(r)")
            XCTAssertFalse((r.stdout + r.stderr).contains("conflict") || (r.stdout + r.stderr).contains("given earlier"), "\(options): \(r)")
            XCTAssertTrue(r.stdout.contains("3 inserted, 0 updated"), "\(options): \(r)")
            XCTAssertEqual(try links(), ["A>B", "B>-", "C>C"], "\(options)")
        }
    }

    func testALaterLineGivingAnotherBossIsAConflict() throws {
        ok("init")
        let r = bk("import", "Emp", csv("e.csv", "name,boss\nA,Y\nY,\nA,Z\nZ,\n"))
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("e.csv:4:3: column \"boss\": Emp with name \"A\" was given earlier on line 2 with other values (boss)"), r.stderr)
        let last = bk("import", "Emp", "e.csv", "--on-conflict", "last")
        XCTAssertEqual(last.status, 0, "\(last)")
        XCTAssertEqual(try rows(), ["1 A 3", "2 Y -", "3 Z -"])
        removeStore()
        ok("init")
        ok("import", "Emp", "e.csv", "--on-conflict", "first")
        XCTAssertEqual(try rows(), ["1 A 2", "2 Y -", "3 Z -"])
    }

    func testChinookEmployeesWithABossOnALaterLineRoundTrip() throws {
        guard let root = sharedDatasets else {
            throw XCTSkip("../shared/datasets was not found beside the project; the Chinook test is skipped")
        }
        dir.write("model.yaml", """
            entities:
              Employee:
                kind: directory
                key: number
                attributes:
                  number: { type: integer }
                  last: { type: string }
                relationships:
                  boss: { to: Employee, inverse: reports }
            """)
        // Chinook's employees, last first: every boss is on a later line.
        let text = try String(contentsOf: root.appendingPathComponent("chinook/Employee.csv"), encoding: .utf8)
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        let header = lines.removeFirst()
        XCTAssertTrue(header.hasPrefix("EmployeeId,LastName,FirstName,Title,ReportsTo,"), header)
        let reversed = "number,last,boss\n" + lines.reversed().map { l in
            let f = l.split(separator: ",", omittingEmptySubsequences: false)
            return "\(f[0]),\(f[1]),\(f[4])\n"
        }.joined()
        ok("init")
        ok("import", "Employee", csv("employees.csv", reversed))
        let bosses = try queryStore(store, "SELECT e.number || '>' || ifnull(b.number, '-') FROM Employee e LEFT JOIN Employee b ON b.id = e.boss_id ORDER BY e.number")
        XCTAssertEqual(bosses, ["1>-", "2>1", "3>2", "4>2", "5>2", "6>1", "7>6", "8>6"])
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM Employee WHERE boss_id IS NOT NULL"), ["7"])
        let exported = ok("export", "Employee")
        dir.write("export.csv", exported)
        let second = dir.file("second.sqlite")
        XCTAssertEqual(runCLI(["--store", second, "init", "--quiet"], in: dir.path).status, 0)
        let r = runCLI(["--store", second, "import", "Employee", "export.csv"], in: dir.path)
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(try queryStore(second, "SELECT * FROM Employee ORDER BY id"), try queryStore(store, "SELECT * FROM Employee ORDER BY id"))
        XCTAssertEqual(runCLI(["--store", second, "export", "Employee"], in: dir.path).stdout, exported)
    }
}
