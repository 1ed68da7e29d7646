/**
 * A self-signed certificate for `hooks.customer.test` (valid until 2126) and its key, for TLS receivers in tests only:
 * nothing outside tests trusts it. Made with `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes
 * -days 36500 -subj /CN=hooks.customer.test -addext subjectAltName=DNS:hooks.customer.test`.
 */
export const TEST_TLS_HOST = 'hooks.customer.test';

/** The certificate, PEM. */
export const TEST_TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBszCCAVmgAwIBAgIUZh3AxrrIyXaBiA1fOd9berULANEwCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTaG9va3MuY3VzdG9tZXIudGVzdDAgFw0yNjExMzAwNzAxMzNa
GA8yMTI2MTEwNjA3MDEzM1owHjEcMBoGA1UEAwwTaG9va3MuY3VzdG9tZXIudGVz
dDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABApX4rLHRlWj0j3bCzVuEXhZPWhJ
TpNSKCz82k8dmDmNrmd6A1xbMYJ7Ru6K+LcjcI9MjLC+2bpcLzA0tXI/moajczBx
MB0GA1UdDgQWBBQJzIiQGibVzKF0YdSXlgu+8ZbECTAfBgNVHSMEGDAWgBQJzIiQ
GibVzKF0YdSXlgu+8ZbECTAPBgNVHRMBAf8EBTADAQH/MB4GA1UdEQQXMBWCE2hv
b2tzLmN1c3RvbWVyLnRlc3QwCgYIKoZIzj0EAwIDSAAwRQIhAPiUgylgnDY3lV9v
PPdU62qalfrDT1FHSDIbDgg1HYyMAiAUiafICNeeIcbbKxZ+eZz0DStLKE6dh6fv
imLThgRukg==
-----END CERTIFICATE-----
`;

/** Its private key, PEM (test only). */
export const TEST_TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgBAiO6lNqw2Or56yC
YGcSiHafXeQxZ4yiXAVPV+AlQN6hRANCAAQKV+Kyx0ZVo9I92ws1bhF4WT1oSU6T
Uigs/NpPHZg5ja5negNcWzGCe0buivi3I3CPTIywvtm6XC8wNLVyP5qG
-----END PRIVATE KEY-----
`;
