package dev.bulwark.redis.internal;

import dev.bulwark.redis.RedisBulkheadException;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Listens on the bulkhead's grant channel. A message lists ids that some instance's script just granted, refused
 * because their weight exceeds a lowered limit ({@code !limit:id}) or evicted by a newcomer of a higher priority
 * (prefix {@code ~}). Every token is a hint: this instance's waiters it names are decided only by what Redis answers
 * when asked ({@link ClusterBulkhead#confirmHints}), so anyone who may publish on the channel can neither admit nor
 * refuse a waiter. Nothing here blocks the pub/sub I/O thread. When the subscription is (re)established, for example
 * after a reconnect during which messages may have been missed, the lease keeper polls at once.
 */
final class GrantSubscriber extends RedisPubSubAdapter<String, String> {

    private final ClusterBulkhead bulkhead;
    private final String channel;
    private StatefulRedisPubSubConnection<String, String> connection;

    GrantSubscriber(ClusterBulkhead bulkhead, String channel) {
        this.bulkhead = bulkhead;
        this.channel = channel;
    }

    void subscribe(StatefulRedisPubSubConnection<String, String> pubSub, Duration timeout) {
        this.connection = pubSub;
        pubSub.addListener(this);
        try {
            pubSub.async().subscribe(channel).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new RedisBulkheadException(bulkhead.name(), "subscribe to " + channel, interrupted);
        } catch (ExecutionException failure) {
            throw new RedisBulkheadException(bulkhead.name(), "subscribe to " + channel, failure.getCause());
        } catch (TimeoutException timedOut) {
            throw new RedisBulkheadException(bulkhead.name(), "subscribe to " + channel, timedOut);
        }
    }

    @Override
    public void message(String messageChannel, String message) {
        if (!channel.equals(messageChannel)) {
            return;
        }
        List<RemoteWaiter> hinted = null;
        int start = 0;
        int length = message.length();
        while (start < length) {
            int end = message.indexOf(' ', start);
            if (end < 0) {
                end = length;
            }
            if (end > start) {
                RemoteWaiter waiter = bulkhead.waiters.get(idOf(message, start, end));
                if (waiter != null) {
                    if (hinted == null) {
                        hinted = new ArrayList<>(2);
                    }
                    hinted.add(waiter);
                }
            }
            start = end + 1;
        }
        if (hinted != null) {
            // Anyone who may PUBLISH on the channel could name a waiter: the message is a hint to ask Redis, and
            // only the script's answer grants or refuses (one round trip, with the waiters of this message only).
            bulkhead.confirmHints(hinted);
        }
    }

    /**
     * The waiter id a token names, whatever it says happened: {@code id} (granted), {@code ~id} (evicted) or
     * {@code !limit:id} (too heavy for a lowered limit). What happened is asked of Redis, never taken from the token,
     * so a malformed or forged token costs a look-up and nothing else.
     */
    private static String idOf(String message, int start, int end) {
        char kind = message.charAt(start);
        if (kind == '~') {
            return message.substring(start + 1, end);
        }
        if (kind == '!') {
            int colon = message.indexOf(':', start);
            return colon < 0 || colon >= end ? "" : message.substring(colon + 1, end);
        }
        return message.substring(start, end);
    }

    @Override
    public void subscribed(String subscribedChannel, long count) {
        if (channel.equals(subscribedChannel)) {
            bulkhead.pollSoon();
        }
    }

    void close() {
        StatefulRedisPubSubConnection<String, String> current = connection;
        if (current != null) {
            current.removeListener(this);
        }
    }
}
