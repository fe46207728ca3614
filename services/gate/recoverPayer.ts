import type { Address } from "viem";
import { recoverTypedDataAddress } from "viem";
import type { PaymentPayload } from "../protocol/schemas/paymentPayload.ts";
import { debitTypedData, transferTypedData } from "../protocol/typedData.ts";

/**
 * The address that signed a payment (ECDSA recovery), or undefined when the signature does not recover
 * (a contract wallet's signature, or garbage).
 * @example await recoverPayer(payload, { escrow, token }) // '0xf39F…'
 */
export async function recoverPayer(
  payload: PaymentPayload,
  contracts: { escrow: Address; token: Address },
): Promise<Address | undefined> {
  try {
    return payload.scheme === "service-escrow"
      ? await recoverTypedDataAddress({
          ...debitTypedData(payload.authorization, contracts.escrow),
          signature: payload.signature,
        })
      : await recoverTypedDataAddress({
          ...transferTypedData(payload.authorization, contracts.token),
          signature: payload.signature,
        });
  } catch {
    return undefined;
  }
}
