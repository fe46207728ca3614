import { expect } from "chai";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { TEST_SCRYPT_N } from "../../testkit/keys/writeKeystore.ts";
import { decryptKeystore } from "./decryptKeystore.ts";
import { encryptKeystore } from "./encryptKeystore.ts";
import { KeystoreError, WrongPasswordError } from "./keystoreError.ts";

/** The two test vectors of the Web3 Secret Storage Definition (ethereum.org), password "testpassword". */
const SPEC_KEY = "0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d";
const SPEC_PBKDF2 = {
  crypto: {
    cipher: "aes-128-ctr",
    cipherparams: { iv: "6087dab2f9fdbbfaddc31a909735c1e6" },
    ciphertext: "5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46",
    kdf: "pbkdf2",
    kdfparams: {
      c: 262144,
      dklen: 32,
      prf: "hmac-sha256",
      salt: "ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd",
    },
    mac: "517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2",
  },
  id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
  version: 3,
};
const SPEC_SCRYPT = {
  crypto: {
    cipher: "aes-128-ctr",
    cipherparams: { iv: "83dbcc02d8ccb40e466191a123791e0e" },
    ciphertext: "d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c",
    kdf: "scrypt",
    kdfparams: {
      dklen: 32,
      n: 262144,
      p: 8,
      r: 1,
      salt: "ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19",
    },
    mac: "2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097",
  },
  id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
  version: 3,
};

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

describe("decryptKeystore", function () {
  this.timeout(60_000);

  it("opens the spec's scrypt test vector with its password", function () {
    expect(decryptKeystore(JSON.stringify(SPEC_SCRYPT), "testpassword")).to.equal(SPEC_KEY);
  });

  it("opens the spec's PBKDF2 test vector with its password", function () {
    expect(decryptKeystore(JSON.stringify(SPEC_PBKDF2), "testpassword")).to.equal(SPEC_KEY);
  });

  it("opens a keystore written the way geth writes one (scrypt r 8, p 1, keyed by address)", function () {
    const key = generatePrivateKey();
    const keystore = encryptKeystore(key, "correct horse", { n: TEST_SCRYPT_N });
    expect(keystore.address).to.equal(privateKeyToAddress(key).slice(2).toLowerCase());
    expect(keystore.crypto.kdfparams).to.include({ r: 8, p: 1, dklen: 32, n: TEST_SCRYPT_N });
    expect(decryptKeystore(JSON.stringify(keystore), "correct horse")).to.equal(key);
  });

  it("refuses a wrong password, naming neither the key nor the password", function () {
    const key = generatePrivateKey();
    const text = JSON.stringify(encryptKeystore(key, "correct horse", { n: TEST_SCRYPT_N }));
    const error = thrown(() => decryptKeystore(text, "wrong horse"));
    expect(error).to.be.instanceOf(WrongPasswordError);
    expect(error.message).to.match(/wrong password/);
    for (const secret of [key.slice(2), "wrong horse", "correct horse"]) expect(error.message).not.to.include(secret);
  });

  it("refuses a ciphertext changed after encryption (its MAC no longer matches)", function () {
    const keystore = encryptKeystore(generatePrivateKey(), "pw", { n: TEST_SCRYPT_N });
    const flipped = (Number.parseInt(keystore.crypto.ciphertext[0]!, 16) ^ 1).toString(16);
    keystore.crypto.ciphertext = flipped + keystore.crypto.ciphertext.slice(1);
    expect(thrown(() => decryptKeystore(JSON.stringify(keystore), "pw"))).to.be.instanceOf(WrongPasswordError);
  });

  it("refuses a keystore whose address is not its key's", function () {
    const keystore = encryptKeystore(generatePrivateKey(), "pw", { n: TEST_SCRYPT_N });
    keystore.address = privateKeyToAddress(generatePrivateKey()).slice(2);
    expect(thrown(() => decryptKeystore(JSON.stringify(keystore), "pw")).message).to.match(
      /names address .* but holds the key of/,
    );
  });

  const malformed: [string, (k: any) => unknown, RegExp][] = [
    ["is not JSON", () => "{", /not JSON/],
    ["is of another version", (k) => ({ ...k, version: 1 }), /version 1 \(3 expected\)/],
    ["uses another cipher", (k) => ({ ...k, crypto: { ...k.crypto, cipher: "aes-128-cbc" } }), /cipher "aes-128-cbc"/],
    ["uses another kdf", (k) => ({ ...k, crypto: { ...k.crypto, kdf: "argon2" } }), /kdf "argon2"/],
    [
      "asks for more than 2^20 scrypt rounds",
      (k) => ({ ...k, crypto: { ...k.crypto, kdfparams: { ...k.crypto.kdfparams, n: 2 ** 24 } } }),
      /kdfparams.n must be an integer from 2 to 1048576/,
    ],
    ["has a short IV", (k) => ({ ...k, crypto: { ...k.crypto, cipherparams: { iv: "00" } } }), /iv is not 16 bytes/],
  ];
  for (const [what, change, message] of malformed)
    it(`refuses a file that ${what}`, function () {
      const keystore = encryptKeystore(generatePrivateKey() as Hex, "pw", { n: TEST_SCRYPT_N });
      const changed = change(keystore);
      const error = thrown(() =>
        decryptKeystore(typeof changed === "string" ? changed : JSON.stringify(changed), "pw"),
      );
      expect(error).to.be.instanceOf(KeystoreError);
      expect(error).not.to.be.instanceOf(WrongPasswordError);
      expect(error.message).to.match(message);
    });
});
