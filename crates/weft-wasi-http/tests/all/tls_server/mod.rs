// A TLS server for the tests of `https` requests: a test CA ("Weft test
// CA") and a certificate it signed for `localhost` and `127.0.0.1`, both
// valid until 2126, made for these tests with the `openssl` command line
// (P-256 keys). The CA's key was not kept. Nothing but these tests
// trusts the CA: a client trusts it only when told to (`SSL_CERT_FILE`).

/// The test CA's certificate (PEM).
pub const CA_PEM: &str = "-----BEGIN CERTIFICATE-----
MIIBlDCCATugAwIBAgIUB0IWMhjeG3L2TYS2SRHvucg07/4wCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMV2VmdCB0ZXN0IENBMCAXDTI2MTIwMzA1MDgwM1oYDzIxMjYx
MTA5MDUwODAzWjAXMRUwEwYDVQQDDAxXZWZ0IHRlc3QgQ0EwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAATtPeNN5d7XSIHvxxUjWmaiMT8XQ3/r7UQbcoYGhzJXSezE
ZTW721y8ymqz01dQjnAKRjTxaSt33bYenZ62PA+no2MwYTAdBgNVHQ4EFgQU76as
UEgv66heFmEA2ZTEF3Uo1tIwHwYDVR0jBBgwFoAU76asUEgv66heFmEA2ZTEF3Uo
1tIwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwID
RwAwRAIgJPWdnHzs1I8b+DuJ141HhdPJAKl3T7CpvpV4bquB02cCIH5usu4x7UYA
z7cHK3dZqQycZSRAxCrMbhzcRSGby1V5
-----END CERTIFICATE-----
";

/// The server's certificate, for `localhost` and `127.0.0.1` (PEM).
const LEAF_PEM: &str = "-----BEGIN CERTIFICATE-----
MIIBwjCCAWigAwIBAgIUDhxDexb8OsF8UwiKlbUwJeLWSjowCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMV2VmdCB0ZXN0IENBMCAXDTI2MTIwMzA1MDgwM1oYDzIxMjYx
MTA5MDUwODAzWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggq
hkjOPQMBBwNCAARb8rBczC4tkJ0d8eh5EUmZXTuS8FRaQvmteDVK+kEAsH8qhi/N
1SwP7l0h9VI8/b4OLWEF85wd0quz+AwNgrDBo4GSMIGPMAwGA1UdEwEB/wQCMAAw
DgYDVR0PAQH/BAQDAgeAMBMGA1UdJQQMMAoGCCsGAQUFBwMBMBoGA1UdEQQTMBGC
CWxvY2FsaG9zdIcEfwAAATAdBgNVHQ4EFgQUMr73lU/FNQnwZKM/gcDewCiWhAcw
HwYDVR0jBBgwFoAU76asUEgv66heFmEA2ZTEF3Uo1tIwCgYIKoZIzj0EAwIDSAAw
RQIhAIx/1861Kp52cRVRi6Ca2NmljcbRG0bNsJ/3W9utdq1HAiBzztdWu3pTRnTI
xwfRedE7xISxv2DVguEKwhAMA0WqIQ==
-----END CERTIFICATE-----
";

/// The server certificate's private key (PKCS #8, PEM).
const LEAF_KEY_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg0pVTqH+0Fow+jgdC
rSNBpoN9jOrFVEEmS4+UeS/1LGqhRANCAARb8rBczC4tkJ0d8eh5EUmZXTuS8FRa
QvmteDVK+kEAsH8qhi/N1SwP7l0h9VI8/b4OLWEF85wd0quz+AwNgrDB
-----END PRIVATE KEY-----
";

/// A TLS acceptor with the test certificate.
pub fn acceptor() -> tokio_rustls::TlsAcceptor {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use tokio_rustls::rustls;
    let chain = vec![CertificateDer::from_pem_slice(LEAF_PEM.as_bytes()).expect("the test certificate")];
    let key = PrivateKeyDer::from_pem_slice(LEAF_KEY_PEM.as_bytes()).expect("the test key");
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("the test certificate and key");
    tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config))
}
