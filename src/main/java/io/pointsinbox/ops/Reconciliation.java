package io.pointsinbox.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Proves the ledger consistent from the database alone: every balance equals the sum of its entries, every entry
 * has its inbox claim, every applied claim has its entry, no balance is negative.
 */
@ApplicationScoped
public class Reconciliation {

    static final int MAX_VIOLATIONS = 100;

    private static final Map<String, String> CHECKS = Map.of(
            "balance_differs_from_entries", """
                    select coalesce(u.consumer, e.consumer), coalesce(u.user_id, e.user_id),
                           'balance ' || coalesce(u.balance, 0) || ', entries sum to ' || coalesce(e.total, 0)
                    from user_points u
                    full join (select consumer, user_id, sum(amount) as total from point_grant
                               group by consumer, user_id) e
                      on e.consumer = u.consumer and e.user_id = u.user_id
                    where coalesce(u.balance, 0) <> coalesce(e.total, 0)
                    """,
            "entry_without_inbox_claim", """
                    select g.consumer, g.user_id, 'entry for message ' || g.message_id || ' has no inbox row'
                    from point_grant g
                    left join inbox_message i on i.consumer = g.consumer and i.message_id = g.message_id
                    where i.id is null and g.granted_at > now() - make_interval(secs => %d)
                    """,
            "applied_claim_without_entry", """
                    select i.consumer, null, 'message ' || i.message_id || ' is marked processed but has no entry'
                    from inbox_message i
                    left join point_grant g on g.consumer = i.consumer and g.message_id = i.message_id
                    where i.outcome = 'PROCESSED' and g.id is null
                    """);
    // No negative-balance check: the schema's check constraint forbids such a row, so the check could never fire.

    private final EntityManager em;
    private final long windowSeconds;

    Reconciliation(EntityManager em, io.pointsinbox.config.RetentionConfig retention) {
        this.em = em;
        // Entries older than the retention window have legitimately lost their inbox row.
        this.windowSeconds = retention.window().toSeconds();
    }

    /** Totals of one consumer's ledger. */
    @RegisterForReflection
    public record ConsumerTotals(String consumer, long users, long balanceTotal, long entries, long entriesTotal,
            Map<String, Long> inboxByOutcome) {
    }

    /** One inconsistency found. */
    @RegisterForReflection
    public record Violation(String check, String consumer, Long userId, String detail) {
    }

    /** The whole report; consistent when there is no violation. */
    @RegisterForReflection
    public record Report(boolean consistent, List<ConsumerTotals> consumers, List<Violation> violations) {
    }

    @Transactional
    public Report run() {
        List<Violation> violations = new ArrayList<>();
        new TreeMap<>(CHECKS).forEach((check, sql) -> {
            for (Object[] row : rows(sql.formatted(windowSeconds) + " limit " + MAX_VIOLATIONS)) {
                violations.add(new Violation(check, (String) row[0], row[1] == null ? null
                        : ((Number) row[1]).longValue(), (String) row[2]));
            }
        });
        return new Report(violations.isEmpty(), totals(), violations);
    }

    private List<ConsumerTotals> totals() {
        Map<String, long[]> balances = new TreeMap<>();
        for (Object[] row : rows("select consumer, count(*), coalesce(sum(balance), 0) from user_points group by 1")) {
            balances.put((String) row[0], new long[] { number(row[1]), number(row[2]), 0, 0 });
        }
        for (Object[] row : rows("select consumer, count(*), coalesce(sum(amount), 0) from point_grant group by 1")) {
            long[] totals = balances.computeIfAbsent((String) row[0], consumer -> new long[4]);
            totals[2] = number(row[1]);
            totals[3] = number(row[2]);
        }
        Map<String, Map<String, Long>> inbox = new TreeMap<>();
        for (Object[] row : rows("select consumer, outcome, count(*) from inbox_message group by 1, 2")) {
            inbox.computeIfAbsent((String) row[0], consumer -> new TreeMap<>()).put(
                    ((String) row[1]).toLowerCase(java.util.Locale.ROOT), number(row[2]));
            balances.computeIfAbsent((String) row[0], consumer -> new long[4]);
        }
        return balances.entrySet().stream()
                .map(e -> new ConsumerTotals(e.getKey(), e.getValue()[0], e.getValue()[1], e.getValue()[2],
                        e.getValue()[3], inbox.getOrDefault(e.getKey(), Map.of())))
                .toList();
    }

    @SuppressWarnings("unchecked")
    private List<Object[]> rows(String sql) {
        return em.createNativeQuery(sql).getResultList();
    }

    private static long number(Object value) {
        return ((Number) value).longValue();
    }
}
