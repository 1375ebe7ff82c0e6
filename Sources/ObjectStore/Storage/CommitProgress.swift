import FileOutput

/// Whether this process has committed a change to a store, for the messages of a command that fails or is
/// interrupted afterwards: a SIGTERM that arrives 50 ms after an import committed must not say "nothing was
/// committed". The state lives in fixed memory a signal handler may read.
///
/// While a COMMIT runs, signals are held back (`SignalHold`): the commit finishes, the state says which way it
/// went, and the signal is raised again to be reported with the true message.
package enum CommitProgress {
    package enum State: Int32 {
        case nothingCommitted = 0
        case committing = 1
        case committed = 2
    }

    nonisolated(unsafe) private static let memory: UnsafeMutablePointer<Int32> = {
        let memory = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        memory.initialize(to: 0)
        return memory
    }()

    /// Async-signal-safe.
    package static var state: State {
        let raw = memory[0]
        if raw == State.committed.rawValue { return .committed }
        return raw == State.committing.rawValue ? .committing : .nothingCommitted
    }

    package static var hasCommitted: Bool { state == .committed }

    /// Marks the start of a COMMIT. Call `finish(committed:)` after it, whichever way it went.
    static func beginCommit() {
        SignalHold.begin()
        if memory[0] != State.committed.rawValue { memory[0] = State.committing.rawValue }
    }

    static func finish(committed: Bool) {
        if committed {
            memory[0] = State.committed.rawValue
        } else if memory[0] == State.committing.rawValue {
            memory[0] = State.nothingCommitted.rawValue
        }
        SignalHold.end()
    }
}
