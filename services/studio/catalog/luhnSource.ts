/** Handler source shared by the card recipes: `luhn(digits)` is whether a digit string passes the Luhn (mod 10) check. */
export const LUHN_SOURCE = `
function luhn(digits) {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return digits.length >= 2 && sum % 10 === 0;
}`;
