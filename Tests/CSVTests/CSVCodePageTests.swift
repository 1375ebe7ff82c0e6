// Issue 16: exports in their own encodings — code pages by name and by `auto`, UTF-16/32 by their mark,
// multi-byte encodings transcoded before parsing. The bytes are made here with glibc's iconv, as the
// systems that write these files make them.

import Foundation
import XCTest
@testable import CSV
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What 1C writes: a directory and an orders list in Windows-1251, `;`, decimal comma, NBSP grouping.
let oneCCustomers = """
    Наименование;Город;ИНН;Оборот
    ООО Ромашка;Москва;7701234567;1 234 567,50
    ИП Щукин Ёжик Петрович;Санкт-Петербург;7812345678;12 345,00
    АО Северная звезда;Екатеринбург;6658123456;987,10
    ЗАО Бельё и Ткани;Нижний Новгород;5260123456;3 450 000,00
    Общество с ограниченной ответственностью Юг;Ростов-на-Дону;6164123456;0,99

    """.replacingOccurrences(of: " 234 567", with: "\u{A0}234\u{A0}567")
    .replacingOccurrences(of: "12 345", with: "12\u{A0}345").replacingOccurrences(of: "3 450 000", with: "3\u{A0}450\u{A0}000")

let centralEuropean = """
    name,city
    Paweł Wróblewski,Łódź
    Zofia Ślęzak,Wrocław
    Antonín Dvořák,Nelahozeves
    Bedřich Smetana,Litomyšl
    Jiří Šťastný,Brno
    Grzegorz Brzęczyszczykiewicz,Chrząszczyżewoszyce

    """

let western = """
    name,city
    François Dupré,Besançon
    Jürgen Müller,Köln
    José Núñez,Cádiz
    Hélène Lefèvre,Orléans
    Günther Weiß,Düsseldorf
    Íñigo Peña,Logroño

    """

final class CSVCodePageTests: XCTestCase {
    func rows(_ bytes: [UInt8], _ encoding: CSVEncoding = .auto, delimiter: CSVReader.Delimiter = .auto,
              bufferSize: Int = 256 << 10) throws -> ([[String]], CSVEncoding) {
        let reader = try CSVReader(data: Data(bytes), displayName: "in.csv",
                                   options: CSVReader.Options(delimiter: delimiter, encoding: encoding, bufferSize: bufferSize))
        return (try reader.readAll(), reader.encoding)
    }

    func expected(_ text: String, _ delimiter: Character = ",") -> [[String]] {
        text.split(separator: "\n").map { $0.split(separator: delimiter, omittingEmptySubsequences: false).map(String.init) }
    }

    func testLabelsAndTheirAliases() {
        let cases: [(String, String)] = [
            ("windows-1251", "windows-1251"), ("CP1251", "windows-1251"), ("win1251", "windows-1251"), ("x-cp1250", "windows-1250"),
            ("ISO_8859-5", "iso-8859-5"), ("latin2", "iso-8859-2"), ("iso8859-15", "iso-8859-15"), ("KOI8R", "koi8-r"),
            ("koi8-u", "koi8-u"), ("IBM866", "cp866"), ("cp850", "cp850"), ("macintosh", "mac-roman"), ("UTF-16LE", "utf-16le"),
            ("utf32", "utf-32"), ("SJIS", "shift_jis"), ("Shift-JIS", "shift_jis"), ("EUC-JP", "euc-jp"), ("GBK", "gb18030"),
            ("big5", "big5"), ("euc-kr", "euc-kr"), ("latin1", "iso-8859-1"), ("utf8", "utf-8"),
        ]
        for (label, name) in cases { XCTAssertEqual(CSVEncoding(label: label)?.name, name, label) }
    }

    func testEBCDICStatefulEncodingsAndIconvSuffixesAreRefused() {
        for label in ["EBCDIC-CP-US", "cp037", "ISO-2022-JP", "utf-7", "windows-1251//TRANSLIT", "utf-8//IGNORE"] {
            guard case .failure(.refused) = CSVEncoding.parse(label) else { return XCTFail("\(label) accepted") }
        }
        XCTAssertEqual(CSVEncoding.parse("windows-1215"), .failure(.unknown))
    }

    func testEveryNamedCodePageHasATableFromIconv() {
        for name in CSVEncoding.names {
            let e = CSVEncoding(label: name)!
            guard e.family == .singleByte else { continue }
            XCTAssertNotNil(SingleByteTable.table(for: e), name)
        }
        let t1251 = SingleByteTable.table(for: CSVEncoding(label: "windows-1251")!)!
        XCTAssertEqual(t1251.scalars[0xC0], 0x410)    // А
        XCTAssertEqual(SingleByteTable.table(for: CSVEncoding(label: "koi8-r")!)!.scalars[0xC1], 0x430)   // а
        XCTAssertEqual(SingleByteTable.table(for: CSVEncoding(label: "cp866")!)!.scalars[0x80], 0x410)
        // Windows-1252 keeps WHATWG's meaning for the five bytes glibc leaves undefined.
        let t1252 = SingleByteTable.windows1252
        for b in [0x81, 0x8D, 0x8F, 0x90, 0x9D] { XCTAssertEqual(t1252.scalars[b], UInt32(b)) }
        XCTAssertEqual(t1252.scalars[0x96], 0x2013)
    }

    func testA1CDirectoryInWindows1251KOI8RAndCP866() throws {
        for (iconvName, name) in [("CP1251", "windows-1251"), ("KOI8-R", "koi8-r"), ("CP866", "cp866")] {
            let bytes = encoded(oneCCustomers, iconvName)
            let (auto, chosen) = try rows(bytes)
            XCTAssertEqual(chosen.name, name, "auto on \(name)")
            XCTAssertEqual(auto, expected(oneCCustomers, ";"), name)
            let (explicit, _) = try rows(bytes, CSVEncoding(label: name)!)
            XCTAssertEqual(explicit, expected(oneCCustomers, ";"), name)
        }
    }

    func testACentralEuropeanFileInWindows1250() throws {
        let bytes = encoded(centralEuropean, "CP1250")
        let (auto, chosen) = try rows(bytes)
        XCTAssertEqual(chosen.name, "windows-1250")
        XCTAssertEqual(auto, expected(centralEuropean))
        XCTAssertEqual(try rows(bytes, CSVEncoding(label: "cp1250")!).0, expected(centralEuropean))
    }

    func testAWesternFileInWindows1252() throws {
        let bytes = encoded(western, "CP1252")
        let (auto, chosen) = try rows(bytes)
        XCTAssertEqual(chosen, .windows1252)
        XCTAssertEqual(auto, expected(western))
    }

    func testTheSameBytesInEveryCandidateAreWindows1252() throws {
        // Only a dash and a no-break space: Windows-1250, -1251 and -1252 read them alike, and Windows-1252 speaks
        // for them; CP850 reads them as letters (`aûb`, `cá`), as plausible, so both are named.
        let error = csvError { _ = try CSVReader(data: Data([0x61, 0x96, 0x62, 0x2C, 0x63, 0xA0, 0x0A]), displayName: "in.csv") }
        XCTAssertEqual(error?.description, "in.csv: not UTF-8; the text looks like Windows-1252 (Western European) or CP850 (Western European, DOS) — give --encoding")
        // Where CP850's reading is no text, the dash is Windows-1252's (Windows-1250 and -1251 reading it alike).
        let (rows, chosen) = try rows(Array("a".utf8) + [0x96] + Array("B,c\n".utf8))
        XCTAssertEqual(chosen, .windows1252)
        XCTAssertEqual(rows, [["a–B", "c"]])
    }

    func testUnclearEvidenceStopsWithTheCandidates() {
        // Three capitals: ООО in Windows-1251, ннн in KOI8-R — both plausible.
        let error = csvError { _ = try CSVReader(data: Data([0x78, 0x2C, 0xCE, 0xCE, 0xCE, 0x0A]), displayName: "orders.csv") }
        XCTAssertEqual(error?.description, "orders.csv: not UTF-8; the text looks like Windows-1251 (Cyrillic) or KOI8-R — give --encoding")
    }

    func testAStreamIsJudgedByItsFirstMiB() throws {
        try withPipe(Data(encoded(oneCCustomers, "CP1251"))) { fd in
            let reader = try CSVReader(fileDescriptor: fd, displayName: "-")
            XCTAssertEqual(reader.encoding.name, "windows-1251")
            XCTAssertEqual(try reader.readAll(), expected(oneCCustomers, ";"))
        }
    }

    func testAByteTheCodePageLeavesUndefinedIsAnErrorAtItsPlace() {
        // 0x98 is no character in Windows-1251: the file is in another encoding, never a control in the store.
        let bytes = encoded("name;city\nООО Ромашка;Мос", "CP1251") + [0x98] + Array("\n".utf8)
        let error = csvError {
            _ = try CSVReader(data: Data(bytes), displayName: "x.csv", options: CSVReader.Options(encoding: CSVEncoding(label: "cp1251")!)).readAll()
        }
        XCTAssertEqual(error?.description, "x.csv:2:16: bytes 0x98 at offset 25 are not windows-1251 — is the file in another encoding? (give it with --encoding)")
        // Windows-1252's five such bytes keep WHATWG's meaning: no error.
        XCTAssertEqual(try? CSVReader(data: Data([0x61, 0x81, 0x0A]), options: CSVReader.Options(encoding: .windows1252)).readAll(), [["a\u{81}"]])
    }

    func testALaterByteContradictsWhatAutoDecidedForAStream() throws {
        // The first MiB is Windows-1251; a byte past it that Windows-1251 does not have stops the reader.
        var text = "name;city\n"
        while text.utf8.count < 1_300_000 { text += "ООО Ромашка;Москва\n" }
        let bytes = encoded(text, "CP1251") + [0x41, 0x98, 0x0A]
        try withPipe(Data(bytes)) { fd in
            let reader = try CSVReader(fileDescriptor: fd, displayName: "-")
            XCTAssertEqual(reader.encoding.name, "windows-1251")
            let error = csvError { _ = try reader.readAll() }
            XCTAssertEqual(error?.description, "-:\(text.split(separator: "\n").count + 1):2: bytes 0x98 at offset \(bytes.count - 2) are not windows-1251 — is the file in another encoding? (give it with --encoding)")
        }
    }

    func testExcelUnicodeTextIsUTF16LEWithAMarkAndTabs() throws {
        let text = oneCCustomers.replacingOccurrences(of: ";", with: "\t").replacingOccurrences(of: "\n", with: "\r\n")
        let bytes: [UInt8] = [0xFF, 0xFE] + encoded(text, "UTF-16LE")
        for encoding in [CSVEncoding.auto, CSVEncoding(label: "utf-16")!, CSVEncoding(label: "utf-16le")!] {
            let (rows, chosen) = try rows(bytes, encoding)
            XCTAssertEqual(chosen.name, "utf-16le", "\(encoding)")
            XCTAssertEqual(rows, expected(oneCCustomers, ";"), "\(encoding)")
            // Every refill boundary of the transcoder and the reader.
            XCTAssertEqual(try self.rows(bytes, encoding, delimiter: .tab, bufferSize: 7).0, expected(oneCCustomers, ";"))
        }
    }

    func testUTF16And32ByNameOrMark() throws {
        let text = "name,city\nZoë,Köln\n"
        XCTAssertEqual(try rows(encoded(text, "UTF-16BE"), CSVEncoding(label: "utf-16be")!).0, expected(text))
        XCTAssertEqual(try rows([0xFE, 0xFF] + encoded(text, "UTF-16BE")).0, expected(text))
        XCTAssertEqual(try rows(encoded(text, "UTF-16LE"), CSVEncoding(label: "utf-16")!).0, expected(text), "no mark: little-endian")
        XCTAssertEqual(try rows([0xFF, 0xFE, 0, 0] + encoded(text, "UTF-32LE")).0, expected(text))
        XCTAssertEqual(try rows([0, 0, 0xFE, 0xFF] + encoded(text, "UTF-32BE"), CSVEncoding(label: "utf-32")!).0, expected(text))
    }

    func testShiftJISWhoseSecondBytesArePipesIsTranscodedBeforeParsing() throws {
        let text = "品名|分類\nポテト|野菜\nソース|調味料\nポン酢|調味料\n"
        let bytes = encoded(text, "SHIFT_JIS")
        XCTAssertTrue(bytes.contains(0x7C) && bytes.firstIndex(of: 0x7C)! < bytes.firstIndex(of: 0x0A)!)
        XCTAssertEqual(bytes[bytes.firstIndex(of: 0x0A)! + 1], 0x83)    // 'ポ' is 0x83 0x7C
        let (rows, chosen) = try rows(bytes, CSVEncoding(label: "shift_jis")!, delimiter: .pipe, bufferSize: 5)
        XCTAssertEqual(chosen.name, "shift_jis")
        XCTAssertEqual(rows, expected(text, "|"))
        // By auto, the delimiter sniffed too: kana and kanji read whole in Shift_JIS, as nonsense in the code pages.
        let (auto, guessed) = try self.rows(bytes)
        XCTAssertEqual(guessed.name, "shift_jis")
        XCTAssertEqual(auto, expected(text, "|"))
    }

    func testGB18030AndEUCKRByNameAndWhatAutoSaysOfThem() throws {
        // Their bytes decode in one another (both bytes 0xA1–0xFE): auto names them and stops.
        let chinese = "名称,城市\n北京有限公司,北京\n上海贸易公司,上海\n"
        XCTAssertEqual(try rows(encoded(chinese, "GB18030"), CSVEncoding(label: "gbk")!).0, expected(chinese))
        let korean = "이름,도시\n김철수,서울\n박영희,부산\n"
        XCTAssertEqual(try rows(encoded(korean, "EUC-KR"), CSVEncoding(label: "euc-kr")!).0, expected(korean))
        let error = csvError { _ = try CSVReader(data: Data(encoded(chinese, "GB18030")), displayName: "cn.csv") }
        XCTAssertEqual(error?.description, "cn.csv: not UTF-8; the text looks like GB18030 (Chinese) or Big5 — give --encoding")
    }

    func testABadByteInATranscodedFileNamesItsLineAndColumn() {
        let bytes = encoded("a|b\nポテト|", "SHIFT_JIS") + [0xFF] + Array("|x\n".utf8)
        let error = csvError {
            _ = try CSVReader(data: Data(bytes), displayName: "jp.csv",
                              options: CSVReader.Options(delimiter: .pipe, encoding: CSVEncoding(label: "sjis")!)).readAll()
        }
        XCTAssertEqual(error?.description, "jp.csv:2:5: bytes 0xFF 0x7C 0x78 0x0A at offset 11 are not shift_jis — is the file in another encoding? (give it with --encoding)")
    }
}
