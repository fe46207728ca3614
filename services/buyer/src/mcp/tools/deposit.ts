import type { Hex } from "viem";
import { z } from "zod";
import { abiOf } from "../../../../protocol/artifacts.ts";
import { checkDepositAuthorization } from "../../sdk/checkDepositAuthorization.ts";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { readBalance } from "../../sdk/readBalance.ts";
import { sendEscrowTransaction } from "../../sdk/sendEscrowTransaction.ts";
import type { DepositAuthorization } from "../../sdk/signDepositAuthorization.ts";
import { signDepositAuthorization } from "../../sdk/signDepositAuthorization.ts";
import { confirmMoneyMove } from "../confirmMoneyMove.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amountInput, amountView, common } from "./toolShapes.ts";

const hex = (length: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${length}}$`));
const digits = z.string().regex(/^[0-9]{1,78}$/);

/** A signed deposit authorization as the tool takes and gives it. */
const authorizationShape = z.object({
  from: hex(40),
  value: digits,
  validAfter: digits,
  validBefore: digits,
  nonce: hex(64),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
});

/**
 * Registers `deposit`: moves stablecoin from the buyer's wallet into its escrow balance with an EIP-3009
 * `ReceiveWithAuthorization` (the escrow's `depositWithAuthorization`).
 * @example registerDeposit(createToolContext({ server, config, source, log }))
 */
export function registerDeposit(tool: ToolContext): void {
  tool.server.registerTool(
    "deposit",
    {
      title: "Deposit into the escrow (moves the buyer's money)",
      description:
        "Moves `amount` base units of stablecoin from the buyer's wallet into its escrow balance, which paid calls draw on. The buyer signs an EIP-3009 ReceiveWithAuthorization to the escrow (no approve, no gas for the signature) and the escrow's depositWithAuthorization credits the buyer. When the wallet holds native coin for gas, this server sends that transaction and answers submitted: true with its hash. When it holds none, nothing is sent and the answer is submitted: false with the signed authorization: anyone may submit it to the escrow's depositWithAuthorization before validBefore (it credits only the buyer and only the escrow can receive it), or pass it back here as `authorization` once the wallet has gas. An authorization for another payee or amount is refused before anything is sent. Above SPEND_CONFIRM_ABOVE the user is asked to confirm first (MCP elicitation); nothing is signed or sent unless they accept.",
      inputSchema: z.strictObject({
        amount: amountInput,
        authorization: authorizationShape
          .optional()
          .describe(
            "A deposit authorization signed earlier (an answer of deposit with submitted: false) to submit now",
          ),
      }),
      outputSchema: {
        ...common,
        submitted: z.boolean(),
        message: z.string(),
        amount: amountView,
        creditedTo: z.string(),
        transaction: z.string().optional(),
        escrow: amountView.optional(),
        authorization: authorizationShape.optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    (input, extra) =>
      tool.run(async (env) => {
        const { chain, account } = tool.buyerOf(env);
        const value = BigInt(input.amount);
        const shown = formatAmount.text(value);
        await confirmMoneyMove(tool, env, {
          amount: value,
          action: `depositing ${shown} into the escrow`,
          message: `Deposit ${shown} from your wallet ${account.address} into the escrow ${chain.escrow}? Paid calls draw on the escrow balance; taking it back out takes a day (request_withdrawal, then withdraw).`,
          confirmTitle: `Deposit ${formatAmount(value).usdc}`,
          relatedRequestId: extra.requestId,
        });
        const asset = await chain.publicClient.readContract({
          address: chain.escrow,
          abi: abiOf("PaymentEscrow"),
          functionName: "token",
        });
        const authorization: DepositAuthorization = input.authorization
          ? {
              ...input.authorization,
              from: input.authorization.from as Hex,
              nonce: input.authorization.nonce as Hex,
              signature: input.authorization.signature as Hex,
            }
          : await signDepositAuthorization(chain, account, asset, value);
        await checkDepositAuthorization(chain, asset, authorization, value);
        const base = { amount: formatAmount(value), creditedTo: authorization.from };
        const gas = await chain.publicClient.getBalance({ address: account.address });
        if (gas === 0n)
          return toolAnswer(env.mode, {
            submitted: false,
            message: `signed, not sent: the wallet ${account.address} holds no native coin to pay the gas of depositWithAuthorization. Anyone may submit this authorization to the escrow ${chain.escrow} (depositWithAuthorization(from, value, validAfter, validBefore, nonce, signature)) before validBefore; it credits only ${authorization.from}. Or send the wallet some native coin and call deposit again with it as authorization.`,
            ...base,
            authorization,
          });
        const { transaction } = await sendEscrowTransaction(chain, account, {
          functionName: "depositWithAuthorization",
          args: [
            authorization.from,
            value,
            BigInt(authorization.validAfter),
            BigInt(authorization.validBefore),
            authorization.nonce,
            authorization.signature,
          ],
        });
        const after = await readBalance(chain, authorization.from);
        return toolAnswer(env.mode, {
          submitted: true,
          message: `deposited ${formatAmount.text(value)} into the escrow for ${authorization.from}`,
          ...base,
          transaction,
          escrow: formatAmount(after.escrow),
        });
      }),
  );
}
