// libcrypto's EVP digest interface, for the SHA-256 of the import history (Sources/Importer/Reading/SHA256.swift).
#include <openssl/crypto.h>
#include <openssl/evp.h>
