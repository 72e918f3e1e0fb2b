package io.pointsinbox.contract;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The message types this service understands, by their wire name. */
public enum MessageType {
    POINTS_GRANTED("PointsGranted.v1"),
    POINTS_REDEEMED("PointsRedeemed.v1");

    private final String wireName;

    MessageType(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    private static final MessageType[] ALL = values();

    public static Optional<MessageType> fromWireName(String name) {
        for (MessageType type : ALL) {
            if (type.wireName.equals(name)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    public static String wireNames() {
        return Arrays.stream(values()).map(MessageType::wireName).collect(Collectors.joining(", "));
    }
}
