import type { Recipe } from "./recipe.ts";
import { base64Recipe } from "./recipes/base64.ts";
import { changeCaseRecipe } from "./recipes/changeCase.ts";
import { convertColourRecipe } from "./recipes/convertColour.ts";
import { convertUnitsRecipe } from "./recipes/convertUnits.ts";
import { csvToJsonRecipe } from "./recipes/csvToJson.ts";
import { dateArithmeticRecipe } from "./recipes/dateArithmetic.ts";
import { digestRecipe } from "./recipes/digest.ts";
import { editDistanceRecipe } from "./recipes/editDistance.ts";
import { evaluateExpressionRecipe } from "./recipes/evaluateExpression.ts";
import { extractEmailsRecipe } from "./recipes/extractEmails.ts";
import { extractNumbersRecipe } from "./recipes/extractNumbers.ts";
import { extractUrlsRecipe } from "./recipes/extractUrls.ts";
import { hexRecipe } from "./recipes/hex.ts";
import { hmacRecipe } from "./recipes/hmac.ts";
import { ibanRecipe } from "./recipes/iban.ts";
import { jsonPointerRecipe } from "./recipes/jsonPointer.ts";
import { jsonToCsvRecipe } from "./recipes/jsonToCsv.ts";
import { luhnRecipe } from "./recipes/luhn.ts";
import { markdownToTextRecipe } from "./recipes/markdownToText.ts";
import { numberBaseRecipe } from "./recipes/numberBase.ts";
import { parseUrlRecipe } from "./recipes/parseUrl.ts";
import { romanNumeralsRecipe } from "./recipes/romanNumerals.ts";
import { slugifyRecipe } from "./recipes/slugify.ts";
import { sortListRecipe } from "./recipes/sortList.ts";
import { statisticsRecipe } from "./recipes/statistics.ts";
import { textStatisticsRecipe } from "./recipes/textStatistics.ts";
import { urlEncodingRecipe } from "./recipes/urlEncoding.ts";
import { uuidV5Recipe } from "./recipes/uuidV5.ts";
import { validateJsonRecipe } from "./recipes/validateJson.ts";
import { wordFrequenciesRecipe } from "./recipes/wordFrequencies.ts";

/** Every vetted recipe of the embedded catalog. */
export const RECIPES: readonly Recipe[] = [
  digestRecipe,
  hmacRecipe,
  base64Recipe,
  hexRecipe,
  urlEncodingRecipe,
  textStatisticsRecipe,
  slugifyRecipe,
  changeCaseRecipe,
  extractEmailsRecipe,
  extractUrlsRecipe,
  extractNumbersRecipe,
  validateJsonRecipe,
  jsonPointerRecipe,
  csvToJsonRecipe,
  jsonToCsvRecipe,
  convertUnitsRecipe,
  dateArithmeticRecipe,
  evaluateExpressionRecipe,
  uuidV5Recipe,
  wordFrequenciesRecipe,
  editDistanceRecipe,
  luhnRecipe,
  ibanRecipe,
  markdownToTextRecipe,
  numberBaseRecipe,
  statisticsRecipe,
  sortListRecipe,
  parseUrlRecipe,
  convertColourRecipe,
  romanNumeralsRecipe,
];
