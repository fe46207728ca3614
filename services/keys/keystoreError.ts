import { BaseError } from "../protocol/errors.ts";

/**
 * A keystore file could not be read or opened. The message names the file and what is wrong with it, never the key
 * or the password.
 */
export class KeystoreError extends BaseError {
  override name = "KeystoreError";
}

/** The password does not open the keystore: its MAC does not match the key derived from the password. */
export class WrongPasswordError extends KeystoreError {
  override name = "WrongPasswordError";
}
