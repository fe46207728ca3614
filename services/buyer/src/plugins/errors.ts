import { BaseError } from "../../../protocol/errors.ts";

/** The command line was not understood: an unknown flag, a missing value, or flags that exclude each other. */
export class PluginsUsageError extends BaseError {
  override name = "PluginsUsageError";
}

/** The marketplace index could not be read in full; nothing is written. */
export class MarketplaceUnreachableError extends BaseError {
  override name = "MarketplaceUnreachableError";
  url: string;

  constructor(url: string, details: string, cause?: unknown) {
    super(`The marketplace index at ${url} could not be read.`, { details, cause });
    this.url = url;
  }
}

/** `--published` was asked for, but the buyer package at this exact version is not on the configured registry. */
export class PackageNotPublishedError extends BaseError {
  override name = "PackageNotPublishedError";
  spec: string;
  registry: string;

  constructor(spec: string, registry: string, details?: string) {
    super(
      `${spec} is not published on ${registry}: publish it first, or generate with --local to launch the buyer MCP from this workspace.`,
      { details },
    );
    this.spec = spec;
    this.registry = registry;
  }
}
