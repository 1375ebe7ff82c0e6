import Foundation
import XCTest
import TestSupport

/// `bookkeeper export`: CSV that import reads back to the same store content, for every entity.
final class ExportCommandTests: ImportTestCase {
    func testExportWritesImportKeyPaths() {
        importSampleData()
        let orders = ok("export", "Order").split(separator: "\n")
        XCTAssertEqual(orders[0], "number,date,made,paid,customer,rows.quantity,rows.price,rows.sum,rows.service")
        XCTAssertEqual(orders[1], "2026-001,2025-12-05,yes,yes,Smith & Sons,10.000,55.75,557.50,Repair")
        XCTAssertTrue(orders.contains("2026-023,2026-06-10,yes,no,Riverside Clinic,,,,") || orders.contains { $0.hasPrefix("2026-023,") && $0.hasSuffix(",,,,") })
        XCTAssertEqual(ok("export", "Customer").split(separator: "\n")[1], "Acme Ltd,C001,Main account since 2019,\"vip, wholesale\"")
        XCTAssertEqual(ok("export", "OrderRow").split(separator: "\n")[0], "quantity,price,sum,order,service")
    }

    func testRoundTripOfEveryEntityDocumentsWithRowsIncluded() throws {
        importSampleData()
        let original = try contents()
        for entity in ["Tag", "Service", "Customer", "Order", "OrderRow"] {
            ok("export", entity, "\(entity).csv")
        }
        // Into a new store, in dependency order: the same content, row IDs included.
        let copy = dir.file("copy.sqlite")
        func run(_ args: String...) {
            let r = runCLI(["--store", copy] + args, in: dir.path)
            XCTAssertEqual(r.status, 0, "\(args): \(r)")
        }
        run("init")
        for entity in ["Tag", "Service", "Customer", "Order"] { run("import", entity, "\(entity).csv") }
        XCTAssertEqual(try strip(dumpStore(copy)), strip(original))
        // The row table on its own replaces every order's rows with the same rows: nothing changes.
        run("import", "OrderRow", "OrderRow.csv")
        XCTAssertEqual(try strip(dumpStore(copy)), strip(original))
        // And exporting the copy gives the same files.
        for entity in ["Tag", "Service", "Customer", "Order", "OrderRow"] {
            let r = runCLI(["--store", copy, "export", entity], in: dir.path)
            XCTAssertEqual(r.stdout, try String(contentsOfFile: dir.file("\(entity).csv"), encoding: .utf8), entity)
        }
    }

    func testHostileValuesSurviveTheRoundTrip() throws {
        ok("init")
        ok("add", "Customer", "name=Quote \"Q\", Ltd", "info=line\nbreak\ttab 🙂")
        ok("add", "Customer", "name= spaced ", "code=007")
        ok("add", "Service", "name=S")
        ok("add", "Order", "number=N1", "date=2024-02-29", "customer=Quote \"Q\", Ltd")
        ok("add", "OrderRow", "order=N1", "service=S", "price=-0.05", "quantity=999999.999")
        ok("add", "OrderRow", "order=N1", "service=S", "sum=92233720368547758.07")
        let original = try contents()
        for entity in ["Tag", "Service", "Customer", "Order"] { ok("export", entity, "\(entity).csv") }
        let copy = dir.file("copy.sqlite")
        XCTAssertEqual(runCLI(["--store", copy, "init"], in: dir.path).status, 0)
        for entity in ["Tag", "Service", "Customer", "Order"] {
            let r = runCLI(["--store", copy, "import", entity, "\(entity).csv"], in: dir.path)
            XCTAssertEqual(r.status, 0, "\(entity): \(r)")
        }
        XCTAssertEqual(try strip(dumpStore(copy)), strip(original))
    }

    func testExportErrors() {
        ok("init")
        XCTAssertEqual(bk("export", "Tga").stderr, "bookkeeper: unknown entity \"Tga\" — did you mean \"Tag\"?\n")
        let r = bk("export", "Tag", "nodir/t.csv")
        XCTAssertEqual(r.status, 73)
        XCTAssertEqual(r.stderr, "bookkeeper: nodir/t.csv: cannot create (No such file or directory)\n", "as for every output file")
    }

    /// Attack 27, finding 15: with a Note whose to-one leads to OrderRow (which has no key), `export Note` wrote its
    /// header to standard output, then failed with 64; a CSV with that header, imported, said `column "row" maps to
    /// nothing on Note — did you mean "row"?`. The export is refused before anything is written (to standard output
    /// or a file); the import says why the column cannot be imported, and `row.id` what OrderRow lacks.
    func testAReferenceToAnEntityWithoutAKeyIsRefusedBeforeAnythingIsWrittenAndSaidTrulyOnImport() {
        dir.write("model.yaml", "entities:\n  Note:\n    kind: directory\n    attributes:\n      name: { type: string }\n"
                  + "    relationships:\n      row: { to: OrderRow, inverse: notes }\n")
        ok("init")
        ok("add", "Note", "name=n1")
        let refusal = "bookkeeper: Note.row: OrderRow has no natural key or unique attribute to name it by\n"
        let toStandardOutput = bk("export", "Note")
        XCTAssertEqual(toStandardOutput.status, 64, "\(toStandardOutput)")
        XCTAssertEqual(toStandardOutput.stdout, "", "decided before the header is written")
        XCTAssertEqual(toStandardOutput.stderr, refusal)
        let toFile = bk("export", "Note", "n.csv")
        XCTAssertEqual(toFile.status, 64, "\(toFile)")
        XCTAssertEqual(toFile.stderr, refusal)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("n.csv")))
        let before = ok("list", "Note")
        dir.write("n.csv", "name,row\nn2,1\n")
        let byName = bk("import", "Note", "n.csv")
        XCTAssertEqual(byName.status, 65, "\(byName)")
        XCTAssertEqual(byName.stderr, "bookkeeper: n.csv:1: column \"row\": Note.row cannot be set from a column: "
                       + "OrderRow has no natural key or unique attribute to name one by\n")
        dir.write("n.csv", "name,row.id\nn2,1\n")
        let byID = bk("import", "Note", "n.csv")
        XCTAssertEqual(byID.status, 65, "\(byID)")
        XCTAssertEqual(byID.stderr, "bookkeeper: n.csv:1: column \"row.id\": OrderRow has no attribute \"id\"\n")
        XCTAssertEqual(ok("list", "Note"), before, "nothing imported")
    }

    /// The objects only: without the store's own tables (its metadata holds its creation time; its history, imports).
    func strip(_ dump: String) -> String {
        var out: [Substring] = []
        var skipping = false
        for line in dump.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { skipping = line.hasPrefix("## _bookkeeper_") }
            if !skipping { out.append(line) }
        }
        return out.joined(separator: "\n")
    }
}
