package io.pointsinbox.inbox;

import java.util.Optional;

/**
 * What the unique index said about a delivery: it claimed the id ({@code row} present), or the id was claimed
 * already, by a first delivery that was still in flight in this process when this one reached the index
 * ({@code concurrent}), or that had finished earlier.
 */
public record Claim(Optional<InboxMessage> row, boolean concurrent) {

    static Claim claimed(InboxMessage row) {
        return new Claim(Optional.of(row), false);
    }

    static Claim alreadyClaimed(boolean concurrent) {
        return new Claim(Optional.empty(), concurrent);
    }

    public boolean won() {
        return row.isPresent();
    }
}
