// Issue 16, end to end: real exports in their own encodings, imported by the built binary into temporary
// stores — with `auto` and with the encoding's name — and the stored values compared with the original text.
// The files are made here with iconv, as 1C, Excel and bank portals make them.

import Foundation
import XCTest
import TestSupport

final class ImportEncodingTests: ImportTestCase {
    /// Runs the binary on the store `name` (each variant gets its own).
    @discardableResult
    func on(_ name: String, _ args: String...) -> CLIResult {
        runCLI(["--store", dir.file(name)] + args, in: dir.path)
    }

    func bytes(_ name: String, _ bytes: [UInt8]) {
        XCTAssertTrue(FileManager.default.createFile(atPath: dir.file(name), contents: Data(bytes)))
    }

    func names(_ storeName: String, _ entity: String = "Customer") throws -> [String] {
        try queryStore(dir.file(storeName), "SELECT name FROM \(entity) ORDER BY id").map { $0 ?? "NULL" }
    }

    /// What 1C writes: a directory and an orders list, `;`, decimal comma, no-break-space grouping, dd.mm.yyyy.
    static let customers = """
        Наименование;Код;Комментарий
        ООО Ромашка;К-001;Москва, ул. Ленина 1
        ИП Щукин Ёжик Петрович;К-002;Санкт-Петербург
        АО Северная звезда;К-003;Екатеринбург
        ЗАО Бельё и Ткани;К-004;Нижний Новгород

        """
    static let orders = """
        Номер;Дата;Контрагент;Услуга;Количество;Цена
        ЗК-0001;05.03.2024;ООО Ромашка;Доставка груза;1;1\u{A0}234\u{A0}567,50
        ЗК-0001;05.03.2024;ООО Ромашка;Погрузка;2,5;450,00
        ЗК-0002;17.11.2024;ЗАО Бельё и Ткани;Хранение на складе;12;12\u{A0}345,00

        """
    static let customersProfile = """
        entity: Customer
        delimiter: ";"
        map:
          Наименование: name
          Код: code
          Комментарий: info

        """
    static let ordersProfile = """
        entity: Order
        delimiter: ";"
        decimal-comma: yes
        date-format: "%d.%m.%Y"
        create-missing: yes
        map:
          Номер: number
          Дата: date
          Контрагент: customer
          Услуга: rows.service
          Количество: rows.quantity
          Цена: rows.price

        """
    static let ordersExported = """
        number,date,made,paid,customer,rows.quantity,rows.price,rows.sum,rows.service
        ЗК-0001,2024-03-05,no,no,ООО Ромашка,1.000,1234567.50,1234567.50,Доставка груза
        ЗК-0001,2024-03-05,no,no,ООО Ромашка,2.500,450.00,1125.00,Погрузка
        ЗК-0002,2024-11-17,no,no,ЗАО Бельё и Ткани,12.000,12345.00,148140.00,Хранение на складе

        """

    func testA1CDirectoryAndOrdersInWindows1251KOI8RAndCP866() throws {
        dir.write("customers.yaml", Self.customersProfile)
        dir.write("orders.yaml", Self.ordersProfile)
        for (iconvName, name) in [("CP1251", "windows-1251"), ("KOI8-R", "koi8-r"), ("CP866", "cp866")] {
            bytes("customers-\(name).csv", encoded(Self.customers.replacingOccurrences(of: "\n", with: "\r\n"), iconvName))
            bytes("orders-\(name).csv", encoded(Self.orders.replacingOccurrences(of: "\n", with: "\r\n"), iconvName))
            for given in [[], ["--encoding", name]] {
                let s = "\(name)\(given.isEmpty ? "-auto" : "").sqlite"
                XCTAssertEqual(on(s, "init").status, 0)
                let c = runCLI(["--store", dir.file(s), "import", "Customer", "customers-\(name).csv", "--profile", "customers.yaml"] + given, in: dir.path)
                XCTAssertEqual(c.status, 0, "\(name) \(given): \(c)")
                XCTAssertTrue(c.stdout.split(separator: "\n").first?.hasSuffix(" records/s), \(name)") == true, c.stdout)
                let o = runCLI(["--store", dir.file(s), "import", "Order", "orders-\(name).csv", "--profile", "orders.yaml"] + given, in: dir.path)
                XCTAssertEqual(o.status, 0, "\(name) \(given): \(o)")
                XCTAssertEqual(try names(s), ["ООО Ромашка", "ИП Щукин Ёжик Петрович", "АО Северная звезда", "ЗАО Бельё и Ткани"], name)
                XCTAssertEqual(try queryStore(dir.file(s), "SELECT info FROM Customer WHERE code = 'К-001'"), ["Москва, ул. Ленина 1"])
                XCTAssertEqual(on(s, "export", "Order").stdout, Self.ordersExported, "\(name) \(given)")
                let history = try JSONSerialization.jsonObject(with: Data(on(s, "imports", "--format", "json").stdout.utf8)) as! [[String: Any]]
                XCTAssertEqual(history.map { $0["encoding"] as? String }, [name, name])
            }
        }
    }

    static let central = """
        name,code,info
        Paweł Wróblewski,PL-1,Łódź
        Zofia Ślęzak,PL-2,Wrocław
        Antonín Dvořák,CZ-1,Nelahozeves
        Jiří Šťastný,CZ-2,Brno
        Grzegorz Brzęczyszczykiewicz,PL-3,Chrząszczyżewoszyce

        """
    static let western = """
        name,code,info
        François Dupré,FR-1,Besançon
        Jürgen Müller,DE-1,Köln
        José Núñez,ES-1,Cádiz
        Hélène Lefèvre,FR-2,Orléans
        Günther Weiß,DE-2,Düsseldorf

        """

    func testCentralEuropeanInWindows1250AndWesternInWindows1252() throws {
        for (text, iconvName, name) in [(Self.central, "CP1250", "windows-1250"), (Self.western, "CP1252", "windows-1252")] {
            bytes("\(name).csv", encoded(text, iconvName))
            for given in [[], ["--encoding", name]] {
                let s = "\(name)\(given.isEmpty ? "-auto" : "").sqlite"
                on(s, "init")
                let r = runCLI(["--store", dir.file(s), "import", "Customer", "\(name).csv"] + given, in: dir.path)
                XCTAssertEqual(r.status, 0, "\(name) \(given): \(r)")
                XCTAssertTrue(r.stdout.contains("records/s), \(name)"), r.stdout)
                XCTAssertEqual(on(s, "export", "Customer").stdout, text.replacingOccurrences(of: "name,code,info", with: "name,code,info,tags")
                    .split(separator: "\n").map { $0 + ($0.hasPrefix("name,") ? "" : ",") }.joined(separator: "\n") + "\n", name)
            }
        }
    }

    func testExcelUnicodeTextIsUTF16LEWithAMarkTabsAndCRLF() throws {
        let text = "name\tcode\tinfo\r\nООО Ромашка\tК-001\tМосква\r\nJürgen Müller\tDE-1\tKöln\r\n山田太郎\tJP-1\t東京\r\n"
        bytes("unicode.txt", [0xFF, 0xFE] + encoded(text, "UTF-16LE"))
        for given in [[], ["--encoding", "utf-16"]] {
            let s = "u\(given.count).sqlite"
            on(s, "init")
            let r = runCLI(["--store", dir.file(s), "import", "Customer", "unicode.txt"] + given, in: dir.path)
            XCTAssertEqual(r.status, 0, "\(given): \(r)")
            XCTAssertTrue(r.stdout.contains("records/s), utf-16le"), r.stdout)
            XCTAssertEqual(try names(s), ["ООО Ромашка", "Jürgen Müller", "山田太郎"])
            XCTAssertEqual(try queryStore(dir.file(s), "SELECT info FROM Customer ORDER BY id"), ["Москва", "Köln", "東京"])
        }
    }

    func testShiftJISWhoseSecondBytesArePipes() throws {
        // 'ポ' is 0x83 0x7C in Shift_JIS: the second byte is the delimiter's.
        let text = "name|code|info\nポテトチップス|S-1|スナック\nポン酢|S-2|調味料\nソース|S-3|調味料\n"
        let sjis = encoded(text, "SHIFT_JIS")
        XCTAssertTrue(sjis.starts(with: Array("name|code|info\n".utf8) + [0x83, 0x7C]))
        bytes("services.csv", sjis)
        for given in [[], ["--encoding", "shift_jis"]] {
            let s = "sjis\(given.count).sqlite"
            on(s, "init")
            let r = runCLI(["--store", dir.file(s), "import", "Service", "services.csv", "--delimiter", "|"] + given, in: dir.path)
            XCTAssertEqual(r.status, 0, "\(given): \(r)")
            XCTAssertTrue(r.stdout.contains("records/s), shift_jis"), r.stdout)
            XCTAssertEqual(try names(s, "Service"), ["ポテトチップス", "ポン酢", "ソース"])
            XCTAssertEqual(try queryStore(dir.file(s), "SELECT info FROM Service ORDER BY id"), ["スナック", "調味料", "調味料"])
        }
    }

    func testAUTF8FileWithOneBadByteNearTheEndIsAnErrorAtItsPlace() throws {
        // 3 MB of valid UTF-8, then a value cut in the middle of `ü` (0xC3 without its second byte).
        var data = Array("name,code,info\n".utf8)
        var line = 1
        while data.count < 3_000_000 {
            line += 1
            data += Array("Müller \(line),C\(line),Köln\n".utf8)
        }
        data += Array("Schmidt,X1,M".utf8) + [0xC3] + Array("\n".utf8)
        bytes("big.csv", data)
        ok("init")
        let before = try storeFingerprint(store)
        let r = bk("import", "Customer", "big.csv")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, """
            bookkeeper: big.csv:\(line + 1):13: bytes 0xC3 at offset \(data.count - 2) are not UTF-8, though the rest of the file is — a value cut mid-character? (if the whole file is in another encoding, give it with --encoding)
            bookkeeper: nothing was imported

            """)
        XCTAssertEqual(try storeFingerprint(store), before, "never decoded as Windows-1252 (`MÃ¼ller`)")
    }

    func testUnclearEvidenceStopsBeforeImporting() throws {
        ok("init")
        bytes("orders.csv", Array("name\n".utf8) + [0xCE, 0xCE, 0xCE, 0x0A])
        let r = bk("import", "Customer", "orders.csv")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "bookkeeper: orders.csv: not UTF-8; the text looks like Windows-1251 (Cyrillic) or KOI8-R — give --encoding\n")
        XCTAssertEqual(bk("import", "Customer", "orders.csv", "--encoding", "cp1251", "--quiet").status, 0)
        XCTAssertEqual(try names("books.sqlite"), ["ООО"])
    }

    func testOrdinalIndicatorsInWindows1252WereReadAsWindows1250() throws {
        // Every Portuguese and Spanish address has `Nº` or `3ª`: Windows-1250 reads them `Nş`, `3ş`, and was
        // chosen with exit 0 although `ç` and `é` read alike in both.
        let text = "name,code,info\r\nJoão Gonçalves,PT-1,\"Rua Augusta, Nº 12, 3º andar\"\r\nJosé Núñez,ES-1,\"Avda. de la Constitución, 15, 2ª planta\"\r\n"
        bytes("clientes.csv", encoded(text, "CP1252"))
        ok("init")
        let r = bk("import", "Customer", "clientes.csv")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertTrue(r.stdout.contains("records/s), windows-1252"), r.stdout)
        XCTAssertEqual(try queryStore(store, "SELECT info FROM Customer ORDER BY id"),
                       ["Rua Augusta, Nº 12, 3º andar", "Avda. de la Constitución, 15, 2ª planta"])
    }

    func testTwoBytesThatLookLikeShiftJISAreNotTakenAsIt() throws {
        // `A\xC0\xAF` decodes as two half-width katakana in Shift_JIS: it was imported as `Aﾀｯ`, exit 0.
        ok("init")
        bytes("one.csv", Array("name\nA".utf8) + [0xC0, 0xAF])
        let before = try storeFingerprint(store)
        let r = bk("import", "Customer", "one.csv")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "bookkeeper: one.csv: not UTF-8; the text looks like CP850 (Western European, DOS) or Shift_JIS (Japanese) — give --encoding\n")
        XCTAssertEqual(try storeFingerprint(store), before)
    }

    func testStandardInputIsJudgedByItsFirstMiB() throws {
        ok("init")
        bytes("in1251.csv", encoded(Self.customers, "CP1251"))
        dir.write("customers.yaml", Self.customersProfile)
        let good = try runTool(["/bin/sh", "-c", "cd '\(dir.path)' && '\(bookkeeperBinary)' --store '\(store)' import Customer - --profile customers.yaml < in1251.csv"])
        XCTAssertEqual(good.status, 0, good.error)
        XCTAssertTrue(String(decoding: good.output, as: UTF8.self).contains("records/s), windows-1251"))
        XCTAssertEqual(try names("books.sqlite").count, 4)
        // ASCII for more than a MiB decides UTF-8; a later Windows-1251 byte contradicts it: an error, rolled back.
        var later = Array("name,code\n".utf8)
        for i in 0..<80_000 { later += Array("Customer \(i),c\(i)\n".utf8) }
        later += encoded("ООО Ромашка 2,x\n", "CP1251")
        bytes("later.csv", later)
        let before = try storeFingerprint(store)
        let bad = try runTool(["/bin/sh", "-c", "cd '\(dir.path)' && '\(bookkeeperBinary)' --store '\(store)' import Customer - < later.csv"])
        XCTAssertEqual(bad.status, 65)
        XCTAssertTrue(bad.error.contains("bookkeeper: -:80002: bytes 0xCE at offset \(later.count - 16) are not UTF-8, though the first 1048576 bytes were — try --encoding"), bad.error)
        XCTAssertEqual(try storeFingerprint(store), before, "the transaction was rolled back")
    }

    func testExportInWindows1251ImportsBackToTheSameObjects() throws {
        dir.write("customers.yaml", Self.customersProfile)
        dir.write("orders.yaml", Self.ordersProfile)
        bytes("customers.csv", encoded(Self.customers, "CP1251"))
        bytes("orders.csv", encoded(Self.orders, "CP1251"))
        ok("init")
        ok("import", "Customer", "customers.csv", "--profile", "customers.yaml")
        ok("import", "Order", "orders.csv", "--profile", "orders.yaml")
        for entity in ["Customer", "Service", "Order"] {
            ok("export", entity, "\(entity).1251.csv", "--encoding", "windows-1251")
        }
        let exported = try Data(contentsOf: URL(fileURLWithPath: dir.file("Customer.1251.csv")))
        XCTAssertTrue(Array(exported).starts(with: encoded("name,code,info,tags\nООО Ромашка", "CP1251")), "written in Windows-1251")
        XCTAssertEqual(on("back.sqlite", "init").status, 0)
        for entity in ["Customer", "Service", "Order"] {
            let r = on("back.sqlite", "import", entity, "\(entity).1251.csv", "--encoding", "windows-1251")
            XCTAssertEqual(r.status, 0, "\(entity): \(r)")
        }
        for entity in ["Customer", "Service", "Order"] {
            XCTAssertEqual(on("back.sqlite", "export", entity).stdout, ok("export", entity), entity)
        }
        // A value Windows-1251 cannot hold: an error naming the object and the column, and no file.
        dir.write("more.csv", "name,code\nYamada 山田,JP-1\n")
        ok("import", "Customer", "more.csv")
        let r = bk("export", "Customer", "c.csv", "--encoding", "windows-1251")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "bookkeeper: c.csv: Customer \"Yamada 山田\", column name: \"山\" (U+5C71) cannot be written in windows-1251 — nothing was written\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("c.csv")))
    }

    func testTheRejectsFileIsInTheInputsEncodingAndReimportsOnceFixed() throws {
        dir.write("customers.yaml", Self.customersProfile)
        dir.write("orders.yaml", Self.ordersProfile + "on-error: skip\nrejects: rejects.csv\n")
        let bad = Self.orders.replacingOccurrences(of: "17.11.2024", with: "31.11.2024").replacingOccurrences(of: "\n", with: "\r\n")
        for (iconvName, name) in [("CP1251", "windows-1251"), ("KOI8-R", "koi8-r")] {
            let s = "\(name).sqlite"
            on(s, "init")
            bytes("customers.csv", encoded(Self.customers, iconvName))
            bytes("orders.csv", encoded(bad, iconvName))
            XCTAssertEqual(on(s, "import", "Customer", "customers.csv", "--profile", "customers.yaml").status, 0)
            let r = on(s, "import", "Order", "orders.csv", "--profile", "orders.yaml")
            XCTAssertEqual(r.status, 65, r.stderr)
            let rejects = try Data(contentsOf: URL(fileURLWithPath: dir.file("rejects.csv")))
            let expected = """
                Номер;Дата;Контрагент;Услуга;Количество;Цена;reason\r
                ЗК-0002;31.11.2024;ЗАО Бельё и Ткани;Хранение на складе;12;12\u{A0}345,00;"column ""Дата"": ""31.11.2024"" is not a date in format %d.%m.%Y"\r

                """
            XCTAssertEqual(Array(rejects), encoded(expected, iconvName), "\(name): the input's encoding, delimiter and line ends")
            // Fixed, it imports again with the same profile and command; its `reason` column is ignored.
            let fixed = String(decoding: try runTool(["/usr/bin/iconv", "-f", iconvName, "-t", "UTF-8", dir.file("rejects.csv")]).output, as: UTF8.self)
                .replacingOccurrences(of: "31.11.2024", with: "30.11.2024")
            bytes("orders.csv", encoded(fixed, iconvName))
            let again = on(s, "import", "Order", "orders.csv", "--profile", "orders.yaml")
            XCTAssertEqual(again.status, 0, "\(name): \(again)")
            XCTAssertEqual(try queryStore(dir.file(s), "SELECT date FROM \"Order\" WHERE number = 'ЗК-0002'"), ["2024-11-30"])
        }
    }

    /// Issue 24: `cat a.csv b.csv` of two UTF-8 exports with byte-order marks leaves b's mark at the start of a line;
    /// it was stored in that line's key (`\u{FEFF}B-1`), a key no later import or `fetch --where` would match.
    func testAByteOrderMarkAtTheStartOfALineWasStoredInTheKey() throws {
        ok("init")
        let a = "\u{FEFF}number,date\nA-1,2024-01-02\n"
        // The realistic join: b.csv is an export of data lines only, with its own mark.
        csv("ab.csv", a + "\u{FEFF}B-1,2024-01-03\n")
        ok("import", "Order", "ab.csv", "--quiet")
        XCTAssertEqual(try query("SELECT number FROM \"Order\" ORDER BY number"), ["A-1", "B-1"])
        XCTAssertEqual(try query("SELECT count(*) FROM \"Order\" WHERE instr(number, char(65279)) > 0"), ["0"])
        XCTAssertEqual(ok("export", "Order").split(separator: "\n").map { $0.prefix(4) }, ["numb", "A-1,", "B-1,"])
        XCTAssertEqual(ok("fetch", "Order", "--where", "number == \"B-1\"", "--count"), "1\n")

        // b.csv with its header: that line is the header again, an error of its own (it was a record, here with a
        // date that is not one), and columns after a dropped mark count from after it, as on the first line.
        csv("abh.csv", a + "\u{FEFF}number,date\nC-1,2024-01-04\n\u{FEFF}D-1,x\n")
        let before = try contents()
        let r = bk("import", "Order", "abh.csv")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stderr.split(separator: "\n").prefix(2), [
            "bookkeeper: abh.csv:3: this line is the header again (two files joined?), not a record",
            "bookkeeper: abh.csv:5:5: column \"date\": \"x\" is not a date in format %Y-%m-%d",
        ])
        XCTAssertEqual(try contents(), before, "the store is left exactly as it was")
    }
}
