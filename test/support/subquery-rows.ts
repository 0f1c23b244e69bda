/** The rows of the subquery and closed-world cases: orders, their items, buyers and regions (the entities of test/support/entities.ts and subquery-entities.ts). */
export const ORDERS = Array.from({ length: 40 }, (_, k) => {
  const i = k + 1;
  return { id: String(i), buyerId: i % 5, note: i % 7 === 0 ? null : `n${i % 4}`, amount: (i * 13) % 50, createdAt: new Date(Date.UTC(2024, 0, 1 + (i % 9), i % 24)) };
});
export const ITEMS = Array.from({ length: 30 }, (_, k) => ({ id: String(1000 + k), orderId: String(((k * 7) % 40) + 1), sku: `s${k % 3}` }));
export const BUYERS = Array.from({ length: 6 }, (_, i) => ({ id: i, name: `b${i}` }));
export const REGIONS = [1, 2, 3].map((id) => ({ id, name: `r${id}` }));
