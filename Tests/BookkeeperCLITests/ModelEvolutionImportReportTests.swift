import XCTest
import TestSupport

/// A model file's new entities are first-class: imported from CSV (the real FDIC bank list), fetched with
/// predicates over their key paths, and reported on.
final class ModelEvolutionImportReportTests: StoreCommandTestCase {
    static let model = """
        entities:
          Bank:
            kind: directory
            key: cert
            attributes:
              name:   { type: string, required: true }
              city:   { type: string }
              state:  { type: string, indexed: true }
              cert:   { type: integer, unique: true, required: true }
              closed: { type: date }
            sort: closed desc, name
          Customer:
            attributes:
              vat: { type: string, unique: true }
            relationships:
              bank: { to: Bank, inverse: customers, delete: nullify }
          Invoice:
            kind: document
            attributes:
              number: { type: string }
              date:   { type: date }
            relationships:
              customer: { to: Customer, inverse: invoices, inverse-delete: deny }
          InvoiceLine:
            kind: rows
            attributes:
              text:   { type: string }
              amount: { type: decimal, scale: 2, required: true }
            relationships:
              invoice: { to: Invoice, inverse: lines, required: true, inverse-delete: cascade }
        """

    func testNewAttributeDirectoryAndDocumentAreImportedFetchedAndReported() throws {
        guard let datasets = sharedDatasets else {
            throw XCTSkip("the shared datasets (../shared/datasets) were not found; this test imports the FDIC bank list from there")
        }
        dir.write("model.yaml", Self.model)
        ok("init")
        // A new directory from a real export: Windows-1252, CRLF, dates like 03-Nov-23, extra columns.
        let banks = datasets.appendingPathComponent("fdic-banklist/banklist_2023-11_crlf.csv").path
        ok("import", "Bank", banks, "--map", "Bank Name=name", "--map", "Closing Date=closed", "--map", "Acquiring Institution=",
           "--map", "Fund=", "--date-format", "%d-%b-%y")
        let banksCount = try queryStore(store, "SELECT COUNT(*) FROM Bank")[0]!
        XCTAssertGreaterThan(Int(banksCount)!, 500)
        XCTAssertEqual(try queryRows(store, "SELECT name, city, state, closed FROM Bank WHERE cert = 8758"),
                       [["Citizens Bank", "Sac City", "IA", "2023-11-03"]])

        // A new attribute and a new relationship on a built-in entity, imported from a CSV that has the columns.
        dir.write("customers.csv", "name,code,vat,bank\nAcme Ltd,C1,DE111,8758\nMüller GmbH,C2,DE222,25851\nZeta,C3,,\n")
        ok("import", "Customer", "customers.csv", "--map", "bank=bank.cert")
        XCTAssertEqual(try queryRows(store, "SELECT c.name, c.vat, b.name FROM Customer c LEFT JOIN Bank b ON b.id = c.bank_id ORDER BY c.id"),
                       [["Acme Ltd", "DE111", "Citizens Bank"], ["Müller GmbH", "DE222", "Heartland Tri-State Bank"], ["Zeta", "NULL", "NULL"]])

        // A new document with its row table, in one file.
        dir.write("invoices.csv", """
            number,date,customer,lines.text,lines.amount
            I-1,2024-01-05,Acme Ltd,Fees,120.00
            I-1,2024-01-05,Acme Ltd,Interest,2.50
            I-2,2024-02-01,Müller GmbH,Fees,80.00
            I-3,2024-02-03,Acme Ltd,,

            """)
        ok("import", "Invoice", "invoices.csv")
        XCTAssertEqual(try queryStore(store, "SELECT COUNT(*) FROM InvoiceLine"), ["3"])

        XCTAssertEqual(ok("fetch", "Customer", "--where", "bank.state == 'IA' AND invoices.lines.@sum.amount > 100",
                          "--columns", "name, vat, bank.name, invoices.@count, invoices.lines.@sum.amount"), """
            name      vat    bank.name      invoices.@count  invoices.lines.@sum.amount
            --------  -----  -------------  ---------------  --------------------------
            Acme Ltd  DE111  Citizens Bank                2                      122.50
            1 object

            """)
        XCTAssertEqual(ok("fetch", "Bank", "--where", "ANY customers.invoices.lines.text == 'Fees'", "--columns", "cert, name"), """
             cert  name
            -----  ------------------------
             8758  Citizens Bank
            25851  Heartland Tri-State Bank
            2 objects

            """)

        // A report over the new entities, from a definition directory of the operator's own.
        let reports = dir.file("reports")
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        dir.write("reports/bank-failures.yaml", """
            title: Bank failures by state
            entity: Bank
            where: closed >= $from
            params:
              from: { type: date, default: 2023-01-01 }
            group: [state]
            sort: count desc, state
            columns:
              - { key: state, title: State }
              - { key: count, title: Failures }
            """)
        let text = ok("report", "bank-failures", "--reports", reports, "--format", "csv")
        let expected = try queryRows(store, """
            SELECT state, COUNT(*) FROM Bank WHERE closed >= '2023-01-01' GROUP BY state ORDER BY COUNT(*) DESC, state
            """)
        XCTAssertEqual(text, "State,Failures\n" + expected.map { $0.joined(separator: ",") + "\n" }.joined())
        XCTAssertEqual(try queryStore(store, "PRAGMA integrity_check"), ["ok"])
    }
}
