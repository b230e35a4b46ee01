/** One part of an address, in the provider's words (spec 4.14: reverse `components[]`). */
export interface AddressComponent {
  long_name: string;
  short_name: string;
  types: string[];
}

/** The nearest address to a point. */
export interface ReverseGeocodeResult {
  address: string;
  components: AddressComponent[];
  placeId: string;
}

export interface PlaceSuggestion {
  placeId: string;
  description: string;
  mainText: string;
  /** Null when the provider gives no second line (a country, a city on its own). */
  secondaryText: string | null;
}

export interface PlaceDetails {
  placeId: string;
  address: string | null;
  latitude: number;
  longitude: number;
}

/**
 * The maps provider port. `null` from reverseGeocode means nothing matched; an empty list from autocomplete
 * means no prediction. Any other provider failure (unreachable, timeout, error status, an answer we cannot
 * read, a place without geometry) rejects with the 502 UpstreamError domain error, never with provider text.
 */
export interface MapsProvider {
  reverseGeocode(lat: number, lng: number): Promise<ReverseGeocodeResult | null>;
  autocomplete(input: string, sessionToken?: string): Promise<PlaceSuggestion[]>;
  placeDetails(placeId: string, sessionToken?: string): Promise<PlaceDetails>;
}

declare module '../providers.js' {
  interface Providers {
    /** Null without a maps key: every geocoding route answers 503 GeocodingNotConfigured (no simulator). */
    maps: MapsProvider | null;
  }
}
