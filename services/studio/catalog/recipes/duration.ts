import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const part = { type: "integer", minimum: 0 };

/** A number of seconds as days, hours, minutes and seconds, in words and in ISO 8601. */
export const durationRecipe: Recipe = {
  id: "format-duration",
  title: "Format a duration",
  description: "Format a duration given in seconds as days, hours, minutes and seconds, human readable and as ISO 8601",
  synonyms: [
    "duration",
    "seconds",
    "minutes",
    "hours",
    "days",
    "elapsed",
    "human",
    "readable",
    "humanize",
    "format",
    "hms",
    "time",
  ],
  category: "time",
  refuses:
    /\b(?:milliseconds?|minutes?|hours?|days?|weeks?)\s+(?:in)?to\s+(?:seconds?|minutes?|hours?|days?|weeks?)\b/i,
  tags: ["time", "duration", "format"],
  parameters: () => ({}),
  build: () => ({
    name: "Format a duration",
    description:
      'Splits whole seconds (0 to 10^12) into days, hours, minutes and seconds, as text ("1d 2h 3m 4s", zero parts left out) and as an ISO 8601 duration.',
    compute: String.raw`
async function compute(input) {
  let rest = input.seconds;
  const days = Math.floor(rest / 86400); rest -= days * 86400;
  const hours = Math.floor(rest / 3600); rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  const seconds = rest - minutes * 60;
  const parts = [[days, "d"], [hours, "h"], [minutes, "m"], [seconds, "s"]].filter(([n]) => n > 0);
  const time = (hours ? hours + "H" : "") + (minutes ? minutes + "M" : "") + (seconds ? seconds + "S" : "");
  return {
    days, hours, minutes, seconds,
    text: parts.length ? parts.map(([n, u]) => n + u).join(" ") : "0s",
    iso: input.seconds === 0 ? "PT0S" : "P" + (days ? days + "D" : "") + (time ? "T" + time : ""),
  };
}`,
    requestSchema: objectSchema({ seconds: { type: "integer", minimum: 0, maximum: 1e12 } }),
    responseSchema: objectSchema({
      days: part,
      hours: { type: "integer", minimum: 0, maximum: 23 },
      minutes: { type: "integer", minimum: 0, maximum: 59 },
      seconds: { type: "integer", minimum: 0, maximum: 59 },
      text: { type: "string" },
      iso: { type: "string", pattern: "^P(?:[0-9]+D)?(?:T(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+S)?)?$" },
    }),
    examples: [
      {
        input: { seconds: 93_784 },
        output: { days: 1, hours: 2, minutes: 3, seconds: 4, text: "1d 2h 3m 4s", iso: "P1DT2H3M4S" },
      },
      { input: { seconds: 3_600 }, output: { days: 0, hours: 1, minutes: 0, seconds: 0, text: "1h", iso: "PT1H" } },
      { input: { seconds: 0 }, output: { days: 0, hours: 0, minutes: 0, seconds: 0, text: "0s", iso: "PT0S" } },
      { input: { seconds: 172_800 }, output: { days: 2, hours: 0, minutes: 0, seconds: 0, text: "2d", iso: "P2D" } },
    ],
    edgeCases: [{ input: { seconds: 59 }, note: "under a minute" }],
    maxResponseBytes: 256,
  }),
};
