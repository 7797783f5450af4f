// Client-side address checks. These improve the form experience; the order
// service validates again and is the authority.

export interface Address {
  fullName: string;
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postalCode: string;
  country: string; // ISO 3166-1 alpha-2
  phone?: string;
}

export type FieldErrors = Partial<Record<keyof Address, string>>;

const POSTAL_PATTERNS: Record<string, RegExp> = {
  US: /^\d{5}(-\d{4})?$/,
  CA: /^[A-Za-z]\d[A-Za-z] ?\d[A-Za-z]\d$/,
  GB: /^[A-Za-z]{1,2}\d[A-Za-z\d]? ?\d[A-Za-z]{2}$/,
  DE: /^\d{5}$/,
  NL: /^\d{4} ?[A-Za-z]{2}$/,
};

export const SHIPPING_COUNTRIES = Object.keys(POSTAL_PATTERNS);

export function validateAddress(a: Address): FieldErrors {
  const errors: FieldErrors = {};
  if (a.fullName.trim().length < 2) errors.fullName = "Enter the recipient's name.";
  if (a.line1.trim().length < 3) errors.line1 = "Enter a street address.";
  if (a.city.trim().length < 2) errors.city = "Enter a city.";
  if (!SHIPPING_COUNTRIES.includes(a.country)) errors.country = "We do not ship to this country yet.";
  const pattern = POSTAL_PATTERNS[a.country];
  if (pattern && !pattern.test(a.postalCode.trim())) errors.postalCode = "Check the postal code.";
  if (a.country === "US" && !a.region) errors.region = "Select a state.";
  if (a.phone && !/^\+?[\d\s().-]{7,20}$/.test(a.phone)) errors.phone = "Check the phone number.";
  for (const [key, value] of Object.entries(a)) {
    if (typeof value === "string" && value.length > 120) errors[key as keyof Address] = "Too long.";
  }
  return errors;
}

export function isValid(errors: FieldErrors): boolean {
  return Object.keys(errors).length === 0;
}
