/**
 * Measures the gas of the escrow's payment paths on the embedded chain and writes docs/gas.md.
 *
 * Every input is fixed (accounts, nonces, validity windows, amounts), so the calldata, the storage touched and
 * therefore every number are the same on each run. Run with `npm run gas`.
 */
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import hre, { network } from 'hardhat'
import { keccak256, toHex } from 'viem'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import StackModule from '../../ignition/modules/Stack.ts'
import { debitAuthorizationTypes, escrowDomain, tokenDomain, transferWithAuthorizationTypes } from '../protocol/typedData.ts'

/** 2100-01-01: a fixed validBefore, so that signatures (and calldata gas) do not depend on the clock. */
const VALID_BEFORE = 4_102_444_800n
const PRICE = 1_200n
const BATCH_SIZES = [1, 10, 50] as const
const DOC = fileURLToPath(new URL('../../docs/gas.md', import.meta.url))

type Row = { operation: string; items: number; gasUsed: bigint }

/** A deterministic nonce for `label`. */
function nonceOf(label: string): Hex {
  return keccak256(toHex(`gas:${label}`))
}

async function measure(): Promise<{ rows: Row[]; baseline: bigint }> {
  await hre.tasks.getTask('build').run({ quiet: true, noTests: true })
  const { viem, ignition } = await network.create()
  const [admin, relayer, facilitator, treasury, creator, buyer, , payout] = await viem.getWalletClients()
  if (!admin || !relayer || !facilitator || !treasury || !creator || !buyer || !payout) throw new Error('the embedded chain has too few accounts')
  const deployed = await ignition.deploy(StackModule, {
    parameters: {
      $global: {
        admin: admin.account.address,
        treasury: treasury.account.address,
        relayer: relayer.account.address,
        facilitator: facilitator.account.address,
      },
    },
  })
  const token = await viem.getContractAt('TestStablecoin', deployed.token.address)
  const identity = await viem.getContractAt('IdentityRegistry', deployed.identity.address)
  const registry = await viem.getContractAt('ResourceRegistry', deployed.registry.address)
  const escrow = await viem.getContractAt('PaymentEscrow', deployed.escrow.address)
  const publicClient = await viem.getPublicClient()

  async function gasOf(hash: Promise<Hex>): Promise<bigint> {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash })
    if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} reverted`)
    return receipt.gasUsed
  }

  await gasOf(identity.write.register(['ipfs://gas-report'], { account: creator.account }))
  const agentId = 0n
  const registration = {
    slug: 'gas-report',
    agentId,
    payout: payout.account.address,
    category: 'data',
    pricing: { base: 1_000n, perKB: 200n, max: 50_000n },
    cardURI: 'https://gas.example/.well-known/agent-card.json',
    cardHash: keccak256('0x7b7d'),
  }
  await gasOf(registry.write.register([registration], { account: creator.account }))
  const resourceId = await registry.read.resourceIdOf([creator.account.address, registration.slug])
  const funds = 1_000_000_000n
  await gasOf(token.write.mint([buyer.account.address, 2n * funds], { account: admin.account }))
  await gasOf(token.write.mint([payout.account.address, 1n], { account: admin.account }))
  await gasOf(token.write.approve([escrow.address, funds], { account: buyer.account }))
  await gasOf(escrow.write.deposit([funds], { account: buyer.account }))

  type DebitSigner = { address: Hex; signTypedData: typeof buyer.signTypedData }
  const mainBuyer: DebitSigner = { address: buyer.account.address, signTypedData: (p) => buyer.signTypedData(p) }

  async function signedDebit(label: string, signer: DebitSigner = mainBuyer) {
    const authorization = {
      buyer: signer.address,
      resourceId,
      maxAmount: 50_000n,
      validAfter: 0n,
      validBefore: VALID_BEFORE,
      nonce: nonceOf(label),
    }
    const signature = await signer.signTypedData({
      domain: escrowDomain(escrow.address),
      types: debitAuthorizationTypes,
      primaryType: 'DebitAuthorization',
      message: authorization,
    })
    return { authorization, amount: PRICE, signature }
  }

  async function signedTransfer(label: string, to: Hex) {
    const message = { from: buyer!.account.address, to, value: PRICE, validAfter: 0n, validBefore: VALID_BEFORE, nonce: nonceOf(label) }
    const signature = await buyer!.signTypedData({
      domain: tokenDomain(token.address),
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message,
    })
    return { ...message, signature }
  }

  const relayerAccount = { account: relayer.account }
  const rows: Row[] = []

  const baselineTransfer = await signedTransfer('baseline warm-up', payout.account.address)
  await gasOf(
    token.write.transferWithAuthorization(
      [baselineTransfer.from, baselineTransfer.to, baselineTransfer.value, 0n, VALID_BEFORE, baselineTransfer.nonce, baselineTransfer.signature],
      relayerAccount,
    ),
  )
  const transfer = await signedTransfer('baseline', payout.account.address)
  const baseline = await gasOf(
    token.write.transferWithAuthorization([transfer.from, transfer.to, transfer.value, 0n, VALID_BEFORE, transfer.nonce, transfer.signature], relayerAccount),
  )
  rows.push({ operation: 'EIP-3009 `transferWithAuthorization`, buyer → creator, straight to the token (baseline)', items: 1, gasUsed: baseline })

  rows.push({
    operation: '`debit`, first credit to the payout and the treasury (cold earnings slots)',
    items: 1,
    gasUsed: await gasOf(escrow.write.debit([await signedDebit('first debit')], relayerAccount)),
  })
  rows.push({ operation: '`debit`', items: 1, gasUsed: await gasOf(escrow.write.debit([await signedDebit('debit')], relayerAccount)) })

  for (const size of BATCH_SIZES) {
    const items = []
    for (let i = 0; i < size; i++) items.push(await signedDebit(`batch ${size} item ${i}`))
    rows.push({ operation: `\`debitBatch\` of ${size}`, items: size, gasUsed: await gasOf(escrow.write.debitBatch([items], relayerAccount)) })
  }

  // The same batch over 50 buyers, one item each, as a busy relayer sends it: each buyer's account and slots are cold.
  const manyBuyers = Array.from({ length: 50 }, (_, i) => privateKeyToAccount(keccak256(toHex(`gas-report buyer ${i}`))))
  await gasOf(token.write.mint([admin.account.address, funds], { account: admin.account }))
  await gasOf(token.write.approve([escrow.address, funds], { account: admin.account }))
  for (const b of manyBuyers) await gasOf(escrow.write.depositFor([b.address, 1_000_000n], { account: admin.account }))
  const spread = []
  for (const [i, b] of manyBuyers.entries()) {
    spread.push(await signedDebit(`spread item ${i}`, { address: b.address, signTypedData: (p) => b.signTypedData(p as never) }))
  }
  rows.push({ operation: '`debitBatch` of 50, one item for each of 50 buyers', items: 50, gasUsed: await gasOf(escrow.write.debitBatch([spread], relayerAccount)) })

  const exactPayment = async (label: string) => {
    const { from, value, validAfter, validBefore, nonce, signature } = await signedTransfer(label, escrow.address)
    return { resourceId, from, value, validAfter, validBefore, nonce, signature }
  }
  await gasOf(escrow.write.settleExact([await exactPayment('exact warm-up')], relayerAccount))
  rows.push({
    operation: '`settleExact` (escrow pulls the EIP-3009 transfer and splits it)',
    items: 1,
    gasUsed: await gasOf(escrow.write.settleExact([await exactPayment('exact')], relayerAccount)),
  })
  return { rows, baseline }
}

function render({ rows, baseline }: { rows: Row[]; baseline: bigint }): string {
  const solidity = hre.config.solidity
  const profile = 'profiles' in solidity ? solidity.profiles.default : undefined
  const compiler = profile?.compilers[0]
  const settings = compiler?.settings as { optimizer?: { enabled?: boolean; runs?: number }; evmVersion?: string } | undefined
  const format = (value: bigint) => value.toLocaleString('en-US')
  const lines = [
    '# Gas',
    '',
    'Generated by `npm run gas` (`node services/stack/gasReport.ts` under Node 22); do not edit by hand.',
    '',
    `Measured on the embedded Hardhat chain (EDR, chain id 5042002), solc ${compiler?.version ?? '?'}, ` +
      `optimizer ${settings?.optimizer?.enabled ? `on, ${settings.optimizer.runs} runs` : 'off'}, EVM ${settings?.evmVersion ?? 'default'}. ` +
      `Each figure is a receipt's \`gasUsed\`, which **includes the 21,000 base cost of a transaction** and its calldata; ` +
      `in a batch that base cost is shared by all items, which is most of why the cost per item falls. ` +
      `Amounts are ${PRICE} base units; the buyer, resource, payout and treasury already hold balances, so the storage ` +
      `written is the steady state of a running marketplace (except in the row that says otherwise). Every debit spends a ` +
      `fresh nonce, which is one new storage slot (about 22,100 gas) that no path can avoid.`,
    '',
    '| operation | items | gasUsed | gas per item | per item vs baseline |',
    '|---|---:|---:|---:|---:|',
  ]
  for (const row of rows) {
    const perItem = row.gasUsed / BigInt(row.items)
    const ratio = Number((perItem * 1000n) / baseline) / 1000
    lines.push(`| ${row.operation} | ${row.items} | ${format(row.gasUsed)} | ${format(perItem)} | ${ratio.toFixed(2)}× |`)
  }
  lines.push(
    '',
    'The baseline is what a stock x402 `exact` payment costs when it goes straight to the creator: one EIP-3009 ' +
      'transfer, with no split and no escrow. `settleExact` performs that same transfer to the escrow and then credits ' +
      'the creator and treasury shares; `debit` moves no tokens at all (it checks the signed authorization, spends the ' +
      'nonce and moves balances inside the escrow), and claims are paid out later, in bulk.',
    '',
  )
  return lines.join('\n')
}

const result = await measure()
await writeFile(DOC, render(result))
process.stdout.write(`${render(result)}\n`);
