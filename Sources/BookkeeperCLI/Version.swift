/// The release `bookkeeper --version` prints; CHANGELOG.md's newest heading names the same (a test holds them together).
package let bookkeeperVersion = "0.11.0"
