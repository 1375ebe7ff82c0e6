import ArgumentParser
import ObjectStore

/// Exit statuses, following sysexits(3). Documented in docs/commands.md and in `bookkeeper --help`.
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let temporaryFailure: Int32 = 75
    static let permission: Int32 = 77
    static let configuration: Int32 = 78

    static func code(for category: ErrorCategory) -> Int32 {
        switch category {
        case .usage: usage
        case .data: dataError
        case .missingInput: noInput
        case .cannotCreateOutput: cannotCreate
        case .io: ioError
        case .temporaryFailure: temporaryFailure
        case .unavailable: unavailable
        case .permission: permission
        case .configuration: configuration
        case .failure: failure
        }
    }

    static let helpText = """
        Exit status: 0 success; 1 other failure; 64 usage error; 65 data error (bad value, failed validation, \
        missing referenced object); 66 input missing (store, file or named object); 69 database server unavailable or unsupported; \
        73 cannot create output; 74 I/O error; 75 temporary failure (store busy, or no consistent read possible now: retry later); \
        77 the database server refused this user; 78 bad configuration.
        """
}
