import type { Recipe } from "./recipe.ts";
import { ageRecipe } from "./recipes/age.ts";
import { anagramRecipe } from "./recipes/anagram.ts";
import { base32Recipe } from "./recipes/base32.ts";
import { base58Recipe } from "./recipes/base58.ts";
import { base64Recipe } from "./recipes/base64.ts";
import { caesarCipherRecipe } from "./recipes/caesarCipher.ts";
import { cardBrandRecipe } from "./recipes/cardBrand.ts";
import { changeCaseRecipe } from "./recipes/changeCase.ts";
import { chunkListRecipe } from "./recipes/chunkList.ts";
import { colourContrastRecipe } from "./recipes/colourContrast.ts";
import { convertColourRecipe } from "./recipes/convertColour.ts";
import { convertUnitsRecipe } from "./recipes/convertUnits.ts";
import { countVowelsRecipe } from "./recipes/countVowels.ts";
import { crc32Recipe } from "./recipes/crc32.ts";
import { csvToJsonRecipe } from "./recipes/csvToJson.ts";
import { dateArithmeticRecipe } from "./recipes/dateArithmetic.ts";
import { dayOfWeekRecipe } from "./recipes/dayOfWeek.ts";
import { daysBetweenRecipe } from "./recipes/daysBetween.ts";
import { digestRecipe } from "./recipes/digest.ts";
import { durationRecipe } from "./recipes/duration.ts";
import { editDistanceRecipe } from "./recipes/editDistance.ts";
import { evaluateExpressionRecipe } from "./recipes/evaluateExpression.ts";
import { extractEmailsRecipe } from "./recipes/extractEmails.ts";
import { extractNumbersRecipe } from "./recipes/extractNumbers.ts";
import { extractUrlsRecipe } from "./recipes/extractUrls.ts";
import { factorialRecipe } from "./recipes/factorial.ts";
import { fibonacciRecipe } from "./recipes/fibonacci.ts";
import { flattenListRecipe } from "./recipes/flattenList.ts";
import { formatJsonRecipe } from "./recipes/formatJson.ts";
import { gcdLcmRecipe } from "./recipes/gcdLcm.ts";
import { hexRecipe } from "./recipes/hex.ts";
import { hmacRecipe } from "./recipes/hmac.ts";
import { htmlEntitiesRecipe } from "./recipes/htmlEntities.ts";
import { ibanRecipe } from "./recipes/iban.ts";
import { isbnRecipe } from "./recipes/isbn.ts";
import { isoWeekRecipe } from "./recipes/isoWeek.ts";
import { jsonPointerRecipe } from "./recipes/jsonPointer.ts";
import { jsonToCsvRecipe } from "./recipes/jsonToCsv.ts";
import { jwtDecodeRecipe } from "./recipes/jwtDecode.ts";
import { leapYearRecipe } from "./recipes/leapYear.ts";
import { luhnRecipe } from "./recipes/luhn.ts";
import { markdownToTextRecipe } from "./recipes/markdownToText.ts";
import { morseCodeRecipe } from "./recipes/morseCode.ts";
import { numberBaseRecipe } from "./recipes/numberBase.ts";
import { numberToWordsRecipe } from "./recipes/numberToWords.ts";
import { palindromeRecipe } from "./recipes/palindrome.ts";
import { parseUrlRecipe } from "./recipes/parseUrl.ts";
import { percentageRecipe } from "./recipes/percentage.ts";
import { primeCheckRecipe } from "./recipes/primeCheck.ts";
import { reverseTextRecipe } from "./recipes/reverseText.ts";
import { romanNumeralsRecipe } from "./recipes/romanNumerals.ts";
import { roundNumberRecipe } from "./recipes/roundNumber.ts";
import { sentenceLengthsRecipe } from "./recipes/sentenceLengths.ts";
import { setOperationsRecipe } from "./recipes/setOperations.ts";
import { slugifyRecipe } from "./recipes/slugify.ts";
import { sortListRecipe } from "./recipes/sortList.ts";
import { sortNumbersRecipe } from "./recipes/sortNumbers.ts";
import { statisticsRecipe } from "./recipes/statistics.ts";
import { stripHtmlRecipe } from "./recipes/stripHtml.ts";
import { textStatisticsRecipe } from "./recipes/textStatistics.ts";
import { truncateTextRecipe } from "./recipes/truncateText.ts";
import { uniqueListRecipe } from "./recipes/uniqueList.ts";
import { unixTimeRecipe } from "./recipes/unixTime.ts";
import { urlEncodingRecipe } from "./recipes/urlEncoding.ts";
import { uuidV5Recipe } from "./recipes/uuidV5.ts";
import { validateEmailRecipe } from "./recipes/validateEmail.ts";
import { validateIpRecipe } from "./recipes/validateIp.ts";
import { validateJsonRecipe } from "./recipes/validateJson.ts";
import { validateUrlRecipe } from "./recipes/validateUrl.ts";
import { validateUuidRecipe } from "./recipes/validateUuid.ts";
import { wordFrequenciesRecipe } from "./recipes/wordFrequencies.ts";
import { wordWrapRecipe } from "./recipes/wordWrap.ts";

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
  palindromeRecipe,
  reverseTextRecipe,
  countVowelsRecipe,
  anagramRecipe,
  caesarCipherRecipe,
  morseCodeRecipe,
  truncateTextRecipe,
  wordWrapRecipe,
  stripHtmlRecipe,
  sentenceLengthsRecipe,
  primeCheckRecipe,
  factorialRecipe,
  gcdLcmRecipe,
  fibonacciRecipe,
  numberToWordsRecipe,
  percentageRecipe,
  roundNumberRecipe,
  sortNumbersRecipe,
  leapYearRecipe,
  dayOfWeekRecipe,
  isoWeekRecipe,
  daysBetweenRecipe,
  ageRecipe,
  unixTimeRecipe,
  durationRecipe,
  htmlEntitiesRecipe,
  base32Recipe,
  base58Recipe,
  jwtDecodeRecipe,
  crc32Recipe,
  validateEmailRecipe,
  validateUrlRecipe,
  validateIpRecipe,
  validateUuidRecipe,
  cardBrandRecipe,
  isbnRecipe,
  colourContrastRecipe,
  chunkListRecipe,
  flattenListRecipe,
  setOperationsRecipe,
  uniqueListRecipe,
  formatJsonRecipe,
];
