// libcrypto's SHA-256, for the import history. Only the one-shot-free streaming API is used.
#include <openssl/sha.h>
