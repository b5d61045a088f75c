/**
 * Character codes the JSON readers compare with `charCodeAt`: one table, named as Unicode names
 * them.
 */
export const TAB = 0x09;
export const LINE_FEED = 0x0a;
export const CARRIAGE_RETURN = 0x0d;
export const QUOTATION_MARK = 0x22;
export const DOLLAR = 0x24;
export const APOSTROPHE = 0x27;
export const ASTERISK = 0x2a;
export const PLUS = 0x2b;
export const COMMA = 0x2c;
export const MINUS = 0x2d;
export const DOT = 0x2e;
export const SLASH = 0x2f;
export const DIGIT_ZERO = 0x30;
export const DIGIT_NINE = 0x39;
export const COLON = 0x3a;
export const LESS_THAN = 0x3c;
export const AT_SIGN = 0x40;
export const UPPER_A = 0x41;
export const UPPER_E = 0x45;
export const UPPER_F = 0x46;
export const UPPER_N = 0x4e;
export const UPPER_T = 0x54;
export const UPPER_Z = 0x5a;
export const LEFT_BRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const RIGHT_BRACKET = 0x5d;
export const UNDERSCORE = 0x5f;
export const GRAVE_ACCENT = 0x60;
export const LOWER_A = 0x61;
export const LOWER_B = 0x62;
export const LOWER_E = 0x65;
export const LOWER_F = 0x66;
export const LOWER_N = 0x6e;
export const LOWER_R = 0x72;
export const LOWER_T = 0x74;
export const LOWER_U = 0x75;
export const LOWER_Z = 0x7a;
export const LEFT_BRACE = 0x7b;
export const RIGHT_BRACE = 0x7d;
export const TILDE = 0x7e;
export const FIRST_NON_ASCII = 0x80;
export const HIGH_SURROGATE_FIRST = 0xd800;
export const HIGH_SURROGATE_LAST = 0xdbff;
