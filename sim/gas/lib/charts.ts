/**
 * Chart ids are `sheet id × this + n`: unique in the spreadsheet without a shared counter, so guest
 * code can number a chart it inserts and the model can renumber a copied sheet's charts.
 */
export const CHART_IDS_PER_SHEET = 10_000;
