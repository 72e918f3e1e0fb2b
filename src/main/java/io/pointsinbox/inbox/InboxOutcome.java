package io.pointsinbox.inbox;

import java.util.Locale;

/** What became of a claimed message; kept on the inbox row so that a duplicate can report the original outcome. */
public enum InboxOutcome {
    /** The effect was applied. */
    PROCESSED,
    /** A redemption larger than the balance: recorded, acknowledged, never retried. */
    REJECTED_INSUFFICIENT_BALANCE;

    /** The lower-case form used in HTTP responses. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
