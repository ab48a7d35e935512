#ifndef FIELDPACK_CCRYPTO_SHIM_H
#define FIELDPACK_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#endif
