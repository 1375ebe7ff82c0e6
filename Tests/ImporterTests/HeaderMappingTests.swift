import XCTest
import Bookkeeping
import ObjectStore
@testable import Importer

/// Header → key paths: exact, any case, --map, trimming, and every error before a row is read.
final class HeaderMappingTests: XCTestCase {
    let model = BookkeepingModel.model

    func map(_ entity: String, _ header: [String], map: [(String, String)] = [], ignoreUnknown: Bool = false,
             source: OptionSource = .commandLine) -> Result<HeaderMapping, HeaderMapping.Problems> {
        var options = ImportOptions()
        for (c, k) in map { options.addMap(column: c, keyPath: k) }
        let resolver = KeyPathResolver(model: model, entity: model.entity(named: entity)!)
        return HeaderMapping.make(header: header, resolver: resolver, map: options.map, mapOrder: options.mapOrder,
                                  mapSource: source, ignoreUnknown: ignoreUnknown)
    }

    func targets(_ r: Result<HeaderMapping, HeaderMapping.Problems>) -> [String] {
        guard case .success(let m) = r else { XCTFail("\(r)"); return [] }
        return m.targets.map { t in
            guard let t else { return "-" }
            switch t {
            case .attribute(let n, _, let rows): return (rows ? "rows." : "") + n
            case .reference(let n, let d, let k, _, let rows): return (rows ? "rows." : "") + "\(n)->\(d).\(k ?? "*")"
            case .links(let n, let d, let k, _, let rows): return (rows ? "rows." : "") + "\(n)=>\(d).\(k ?? "*")"
            }
        }
    }

    func problems(_ r: Result<HeaderMapping, HeaderMapping.Problems>) -> [String] {
        guard case .failure(let p) = r else { XCTFail("expected problems"); return [] }
        return p.list.map(\.message)
    }

    func testExactThenAnyCaseThenMap() {
        XCTAssertEqual(targets(map("Customer", ["name", "CODE", "Notes", "tags"], map: [("Notes", "info")])),
                       ["name", "code", "info", "tags=>Tag.*"])
    }

    func testMapBeatsAGuessAndAnEmptyKeyPathIgnoresAColumn() {
        XCTAssertEqual(targets(map("Customer", ["name", "info", "x"], map: [("info", "code"), ("x", "")])), ["name", "code", "-"])
    }

    func testHeaderNamesAreTrimmedOfSpacesNBSPAndByteOrderMarks() {
        XCTAssertEqual(HeaderMapping.trim("\u{FEFF} Bank Name\u{A0}"), "Bank Name")
        XCTAssertEqual(targets(map("Customer", ["\u{FEFF}name\u{A0}", " code "])), ["name", "code"])
    }

    func testReferencesByNaturalKeyOrAnyUniqueAttribute() {
        XCTAssertEqual(targets(map("Order", ["number", "customer", "rows.service.code", "rows.sum"])),
                       ["number", "customer->Customer.*", "rows.service->Service.code", "rows.sum"])
        XCTAssertEqual(targets(map("Order", ["number", "customerID"], map: [("customerID", "customer.code")])),
                       ["number", "customer->Customer.code"])
        XCTAssertEqual(targets(map("OrderRow", ["orderID", "productID", "qty"],
                                   map: [("orderID", "order.number"), ("productID", "service.code"), ("qty", "quantity")])),
                       ["order->Order.*", "service->Service.code", "quantity"])
    }

    func testUnknownColumnsAreErrorsWithSuggestionsUnlessIgnored() {
        XCTAssertEqual(problems(map("Customer", ["nmae", "code", "Fax"])), [
            "column \"nmae\" maps to nothing on Customer — did you mean \"name\"?",
            "column \"Fax\" maps to nothing on Customer",
            "map such columns with --map \"COLUMN=keypath\" (or --map \"COLUMN=\" to ignore one), or pass --ignore-unknown; key paths of Customer: name, code, info, tags",
        ])
        guard case .success(let m) = map("Customer", ["name", "Fax", ""], ignoreUnknown: true) else { return XCTFail() }
        XCTAssertEqual(m.unknown, ["Fax", "#3"])
    }

    func testBadMapsAreUsageErrorsOrConfigurationErrorsFromAProfile() {
        let r = map("Customer", ["name", "CustNo"], map: [("CustNo", "customer.code"), ("Kunde", "code")])
        guard case .failure(let p) = r else { return XCTFail() }
        XCTAssertEqual(p.list.map(\.message), [
            "--map \"Kunde=code\": the file has no column \"Kunde\"",
            "--map \"CustNo=customer.code\": \"customer.code\" names nothing on Customer",
        ])
        XCTAssertEqual(p.list.map(\.category), [.usage, .usage])
        guard case .failure(let q) = map("Customer", ["name"], map: [("name", "nme")], source: .profile("c.yaml")) else { return XCTFail() }
        XCTAssertEqual(q.list.map(\.message), ["c.yaml: --map \"name=nme\": \"nme\" names nothing on Customer — did you mean \"name\"?"])
        XCTAssertEqual(q.list.map(\.category), [.configuration])
    }

    func testKeyPathsThatCannotBeImported() {
        XCTAssertEqual(problems(map("Customer", ["name", "o"], map: [("o", "orders")])),
                       ["--map \"o=orders\": Customer.orders is set from the other side: import Order with a column for Order.customer"])
        XCTAssertEqual(problems(map("Order", ["number", "c"], map: [("c", "customer.info")])),
                       ["--map \"c=customer.info\": \"customer.info\": Customer.info is not unique, so it cannot name one Customer"])
        XCTAssertEqual(problems(map("Order", ["number", "r"], map: [("r", "rows.order")])),
                       ["--map \"r=rows.order\": \"rows.order\": each row belongs to the document on its line; OrderRow.order is not a column"])
    }

    func testTwoColumnsCannotFillOneProperty() {
        XCTAssertEqual(problems(map("Customer", ["name", "Name2"], map: [("Name2", "name")])),
                       ["columns \"name\" and \"Name2\" both fill name"])
    }
}
