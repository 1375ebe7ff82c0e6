// Every shipped report run on SampleData/, its cells checked against SQL written by hand here — not by
// the fetch compiler — over the store's own tables (decimals are integer units × 10^scale, dates ISO
// text, booleans 0/1: docs/model.md "How the store keeps it"). Today is fixed at 2026-11-21.

import Bookkeeping
import ObjectStore
import Reports
import ReportRenderers
import TestSupport
import XCTest

final class ShippedReportSQLTests: XCTestCase {
    /// The report's cells as stored text, and the hand-written query's rows; both must be equal and not empty.
    private func assertMatches(_ name: String, _ arguments: [String: String] = [:], sql: String,
                               minimumRows: Int = 3, file: StaticString = #filePath, line: UInt = #line) throws {
        let report = try ShippedReports.prepared(name, arguments)
        let ours = try report.rows(from: SampleStore.open()).map { $0.map(storedText) }
        let theirs = try queryRows(SampleStore.path(), sql)
        XCTAssertGreaterThanOrEqual(theirs.count, minimumRows, "the check is not vacuous", file: file, line: line)
        XCTAssertEqual(ours.count, theirs.count, "row count", file: file, line: line)
        for (i, (a, b)) in zip(ours, theirs).enumerated() where a != b {
            XCTFail("\(name) row \(i + 1): report \(a), SQL \(b)", file: file, line: line)
        }
    }

    func testUnpaidOrders() throws {
        let sql = """
            SELECT o.date, c.name, o.number, (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r WHERE r.order_id = o.id)
            FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
            WHERE o.made = 1 AND o.paid = 0 AND o.date <= '%@'
            ORDER BY o.date, c.name, o.id
            """
        try assertMatches("unpaid-orders", sql: sql.replacingOccurrences(of: "%@", with: "2026-11-21"))
        try assertMatches("unpaid-orders", ["until": "2026-09-11"], sql: sql.replacingOccurrences(of: "%@", with: "2026-09-11"))
        try assertMatches("unpaid-orders", ["until": "start of month - 3 months"],
                          sql: sql.replacingOccurrences(of: "%@", with: "2026-08-01"), minimumRows: 1)
    }

    func testSalesByCustomer() throws {
        try assertMatches("sales-by-customer", sql: """
            SELECT c.name, COUNT(*), COALESCE(SUM(t.total), 0)
            FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
            LEFT JOIN (SELECT order_id, SUM(sum) AS total FROM OrderRow GROUP BY order_id) t ON t.order_id = o.id
            WHERE o.paid = 1 AND o.date >= '2026-01-01' AND o.date <= '2026-11-21'
            GROUP BY c.name
            ORDER BY 3 DESC, c.name
            """)
        try assertMatches("sales-by-customer", ["from": "2025-01-01", "to": "2025-12-31"], sql: """
            SELECT c.name, COUNT(*), COALESCE(SUM(t.total), 0)
            FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
            LEFT JOIN (SELECT order_id, SUM(sum) AS total FROM OrderRow GROUP BY order_id) t ON t.order_id = o.id
            WHERE o.paid = 1 AND o.date BETWEEN '2025-01-01' AND '2025-12-31'
            GROUP BY c.name
            ORDER BY 3 DESC, c.name
            """)
    }

    func testSalesByService() throws {
        try assertMatches("sales-by-service", sql: """
            SELECT s.name, COUNT(*), SUM(r.quantity), SUM(r.sum)
            FROM OrderRow r JOIN "Order" o ON o.id = r.order_id JOIN Service s ON s.id = r.service_id
            WHERE o.paid = 1 AND o.date >= '2026-01-01' AND o.date <= '2026-11-21'
            GROUP BY s.name
            ORDER BY 4 DESC, s.name
            """)
    }

    /// Every month of the period (`period: { from: $from, to: $to }`), those without sales with zeros.
    func testSalesByMonth() throws {
        try assertMatches("sales-by-month", sql: """
            WITH RECURSIVE months(m) AS (
                SELECT '2025-12-01' UNION ALL SELECT date(m, '+1 month') FROM months WHERE m < '2026-11-01'),
            sales AS (
                SELECT substr(o.date, 1, 7) AS month, COUNT(*) AS orders, COALESCE(SUM(t.total), 0) AS total
                FROM "Order" o
                LEFT JOIN (SELECT order_id, SUM(sum) AS total FROM OrderRow GROUP BY order_id) t ON t.order_id = o.id
                WHERE o.paid = 1 AND o.date >= '2025-12-01' AND o.date <= '2026-11-21'
                GROUP BY 1)
            SELECT substr(m, 1, 7), COALESCE(s.orders, 0), COALESCE(s.total, 0)
            FROM months LEFT JOIN sales s ON s.month = substr(m, 1, 7)
            ORDER BY 1
            """)
        XCTAssertEqual(try ShippedReports.prepared("sales-by-month").rows(from: SampleStore.open()).count, 12, "twelve months")
    }

    func testCustomers() throws {
        // `name natural` (Finder-like: numbers by value, case and accents compared last): for these names, the
        // same as padding the "Item 2" number to two digits and reading "ä" as "a".
        try assertMatches("customers", sql: """
            SELECT c.name, c.code,
                   (SELECT group_concat(name, ', ') FROM (SELECT t.name AS name FROM Customer_tags ct
                       JOIN Tag t ON t.id = ct.Tag_id WHERE ct.Customer_id = c.id ORDER BY t.id)),
                   (SELECT COUNT(*) FROM "Order" o WHERE o.customer_id = c.id),
                   (SELECT MAX(o.date) FROM "Order" o WHERE o.customer_id = c.id),
                   (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r JOIN "Order" o ON o.id = r.order_id WHERE o.customer_id = c.id)
            FROM Customer c
            ORDER BY replace(replace(c.name, 'Item 2 ', 'Item 02 '), 'ä', 'a'), c.id
            """, minimumRows: 20)
    }

    func testOrderDetails() throws {
        let sql = """
            SELECT o.date, o.number, c.name, s.name, r.quantity, r.price, r.sum
            FROM OrderRow r JOIN "Order" o ON o.id = r.order_id LEFT JOIN Customer c ON c.id = o.customer_id
            JOIN Service s ON s.id = r.service_id
            WHERE o.date >= '%@' AND o.date <= '%@'
            ORDER BY o.date, o.number, r.id
            """
        func between(_ a: String, _ b: String) -> String {
            sql.replacingOccurrences(of: "'%@' AND", with: "'\(a)' AND").replacingOccurrences(of: "<= '%@'", with: "<= '\(b)'")
        }
        try assertMatches("order-details", sql: between("2026-10-01", "2026-10-31"))
        try assertMatches("order-details", ["from": "2025-12-01", "to": "2026-02-28"], sql: between("2025-12-01", "2026-02-28"))
    }

    /// The numbers the text output shows are the SQL's too: the totals line of unpaid orders.
    func testTotalsAreTheSumOfTheRows() throws {
        let total = try queryStore(SampleStore.path(), """
            SELECT SUM(r.sum) FROM OrderRow r JOIN "Order" o ON o.id = r.order_id
            WHERE o.made = 1 AND o.paid = 0 AND o.date <= '2026-11-21'
            """)
        XCTAssertEqual(total, ["726405"])
        let text = try renderedText("unpaid-orders")
        XCTAssertTrue(text.contains("Total                                   7,264.05\n"), text)
    }

    private func renderedText(_ name: String) throws -> String {
        let directory = TemporaryDirectory()
        let path = directory.file("out.txt")
        try ShippedReports.prepared(name).render(from: SampleStore.open(), with: .text(), to: .file(path: path))
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
