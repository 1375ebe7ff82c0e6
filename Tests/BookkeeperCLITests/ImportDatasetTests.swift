import Foundation
import XCTest
import TestSupport

/// Imports of real exports from other systems (../shared/datasets): Windows-1252, CRLF, NBSP-padded headers,
/// `1-May-23` dates, NULL tokens, and the two-file form of orders and their details.
final class ImportDatasetTests: ImportTestCase {
    func dataset(_ folder: String, _ file: String) throws -> String {
        guard let root = sharedDatasets else {
            throw XCTSkip("../shared/datasets was not found beside the project; dataset import tests skipped")
        }
        return root.appendingPathComponent(folder).appendingPathComponent(file).path
    }

    func testFDICBankListAsOrdersOfTheirAcquirers() throws {
        let file = try dataset("fdic-banklist", "banklist.csv")
        ok("init")
        dir.write("fdic.yaml", """
            # Each failed bank becomes an order: its certificate number, its closing date, its acquirer as customer.
            entity: Order
            date-format: "%d-%b-%y"
            create-missing: yes
            ignore-unknown: yes
            map:
              Cert: number
              Closing Date: date
              Acquiring Institution: customer

            """)
        let out = ok("import", "Order", file, "--profile", "fdic.yaml")
        XCTAssertEqual(counts(out, "Order"), "566 inserted, 0 updated, 0 unchanged, 0 rejected", out)
        XCTAssertTrue(out.contains("ignored columns: \"Bank Name\", \"City\", \"State\", \"Fund\""), out)
        XCTAssertEqual(try query("SELECT o.date || ' ' || c.name FROM \"Order\" o JOIN Customer c ON c.id = o.customer_id WHERE o.number = '24735'"),
                       ["2023-03-10 First–Citizens Bank & Trust Company"], "Windows-1252's en dash, 10-Mar-23")
        XCTAssertEqual(try query("SELECT date FROM \"Order\" WHERE number = '59017'"), ["2023-05-01"], "1-May-23")
        XCTAssertEqual(try query("SELECT date FROM \"Order\" WHERE number = '21029'"), ["2000-10-13"], "13-Oct-00")
        let again = ok("import", "Order", file, "--profile", "fdic.yaml")
        XCTAssertEqual(counts(again, "Order"), "0 inserted, 0 updated, 566 unchanged, 0 rejected")

        // The CRLF snapshot without a final line break, with spaces after its header names.
        let crlf = try dataset("fdic-banklist", "banklist_2023-07_no-final-newline.csv")
        let more = ok("import", "Order", crlf, "--profile", "fdic.yaml")
        XCTAssertEqual(counts(more, "Order"), "1 inserted, 0 updated, 566 unchanged, 0 rejected", more)
    }

    func testFDICWithoutTheRightDateFormat() throws {
        let file = try dataset("fdic-banklist", "banklist.csv")
        ok("init")
        let r = bk("import", "Order", file, "--map", "Cert=number", "--map", "Closing Date=date", "--ignore-unknown")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr.split(separator: "\n").first,
                       "bookkeeper: \(file):2:72: column \"Closing Date\": \"1-May-23\" is not a date in format %Y-%m-%d")
    }

    func testNorthwindCustomersProductsOrdersAndDetails() throws {
        let customers = try dataset("northwind", "customers.csv")
        ok("init")
        dir.write("customers.yaml", """
            entity: Customer
            null: [NULL]
            ignore-unknown: yes
            map:
              customerID: code
              companyName: name
              contactName: info

            """)
        XCTAssertEqual(counts(ok("import", "Customer", customers, "--profile", "customers.yaml"), "Customer"),
                       "91 inserted, 0 updated, 0 unchanged, 0 rejected")
        XCTAssertEqual(try query("SELECT name FROM Customer WHERE code = 'ALFKI'"), ["Alfreds Futterkiste"])

        ok("import", "Service", try dataset("northwind", "products.csv"), "--map", "productID=code", "--map", "productName=name",
           "--ignore-unknown")
        dir.write("orders.yaml", """
            entity: Order
            date-format: "%Y-%m-%d %H:%M:%S.000"
            ignore-unknown: yes
            map:
              orderID: number
              customerID: customer.code
              orderDate: date

            """)
        XCTAssertEqual(counts(ok("import", "Order", try dataset("northwind", "orders.csv"), "--profile", "orders.yaml"), "Order"),
                       "830 inserted, 0 updated, 0 unchanged, 0 rejected")
        let details = ["import", "OrderRow", try dataset("northwind", "order_details.csv"), "--map", "orderID=order.number",
                       "--map", "productID=service.code", "--map", "unitPrice=price", "--map", "discount="]
        let out = bk(details)
        XCTAssertEqual(out.status, 0, "\(out)")
        XCTAssertEqual(counts(out.stdout, "OrderRow"), "2155 inserted, 0 updated, 0 unchanged, 0 deleted, 0 rejected")
        XCTAssertEqual(try query("SELECT r.quantity || ' ' || r.price || ' ' || r.sum FROM OrderRow r JOIN \"Order\" o ON o.id = r.order_id WHERE o.number = '10248' ORDER BY r.id LIMIT 1"),
                       ["12000 1400 16800"], "12 × 14.00 = 168.00, derived")
        let before = try contents()
        XCTAssertEqual(counts(bk(details).stdout, "OrderRow"), "0 inserted, 0 updated, 2155 unchanged, 0 deleted, 0 rejected")
        XCTAssertEqual(try contents(), before)
    }

    func testChinookCustomers() throws {
        let file = try dataset("chinook", "Customer.csv")
        ok("init")
        dir.write("chinook.yaml", """
            entity: Customer
            key: code
            null: [NULL]
            ignore-unknown: yes
            map:
              CustomerId: code
              Email: name
              Company: info

            """)
        let out = ok("import", "Customer", file, "--profile", "chinook.yaml")
        XCTAssertEqual(counts(out, "Customer"), "59 inserted, 0 updated, 0 unchanged, 0 rejected")
        XCTAssertEqual(try query("SELECT info FROM Customer WHERE code = '1'"), ["Embraer - Empresa Brasileira de Aeronáutica S.A."])
        XCTAssertEqual(try query("SELECT count(*) FROM Customer WHERE info IS NULL"), ["49"])
    }

    /// Chinook's invoice lines carry their own key (InvoiceLineId): with a model that gives OrderRow a unique
    /// `line`, the lines are matched by it, and a second run of the same file changes nothing. (It failed with
    /// 2,240 "already exists" errors when lines were matched by position only.)
    func testChinookInvoiceLinesReimportByTheirLineKey() throws {
        let invoices = try dataset("chinook", "Invoice.csv")
        let lines = try dataset("chinook", "InvoiceLine.csv")
        let model = dir.write("lines.yaml", "entities:\n  OrderRow:\n    attributes:\n      line: { type: integer, unique: true }\n")
        func run(_ args: [String]) -> CLIResult { runCLI(["--store", store, "--model", model] + args, in: dir.path) }
        XCTAssertEqual(run(["init"]).status, 0)
        let orders = run(["import", "Order", invoices, "--map", "InvoiceId=number", "--map", "InvoiceDate=date",
                          "--ignore-unknown", "--date-format", "%Y-%m-%d 0:00:00"])
        XCTAssertEqual(orders.status, 0, "\(orders)")
        let args = ["import", "OrderRow", lines, "--map", "InvoiceLineId=line", "--map", "InvoiceId=order.number",
                    "--map", "TrackId=service.name", "--map", "UnitPrice=price", "--map", "Quantity=quantity", "--create-missing"]
        let first = run(args)
        XCTAssertEqual(first.status, 0, "\(first)")
        XCTAssertEqual(counts(first.stdout, "OrderRow"), "2240 inserted, 0 updated, 0 unchanged, 0 deleted, 0 rejected")
        let second = run(args)
        XCTAssertEqual(second.status, 0, "\(second)")
        XCTAssertEqual(counts(second.stdout, "OrderRow"), "0 inserted, 0 updated, 2240 unchanged, 0 deleted, 0 rejected")
        XCTAssertEqual(run(["check"]).status, 0)
    }
}
