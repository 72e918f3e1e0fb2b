package io.pointsinbox.inbox;

/** What became of a message that was claimed in the inbox; kept on the row so a duplicate can report it. */
public enum InboxOutcome {
    PROCESSED
}
