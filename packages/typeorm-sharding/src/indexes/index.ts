export { indexedWrite, type IndexedWrite } from './indexed-write.js';
export { maintainIndexes, type IndexHost } from './maintain-indexes.js';
export { registerLookupTables } from './register-lookups.js';
export { lookupSchemaOf } from './lookup-schema.js';
export { lookupSiteOf, lookupValuesOf, ownerShardsOf, type LookupSite } from './lookup-routing.js';
export { checkIndexesBuilt } from './check-built.js';
