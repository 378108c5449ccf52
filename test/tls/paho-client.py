"""A paho client as the platform's tutorial writes it: tls_set(ca_certs=..., certfile=..., keyfile=...).

Usage: paho-client.py <host> <port> <ca.pem> <certfile or -> <keyfile or -> <topic> <payload>
Prints one line per event: connected, refused <rc>, reply <status|error>, disconnected. Exits after the reply
(one-way) or once the broker disconnects it (when told to wait with PAHO_WAIT_FOR_DISCONNECT=1).
"""
import os
import sys
import threading

import paho.mqtt.client as mqtt

host, port, ca, cert, key, topic, payload = sys.argv[1:8]
wait_for_disconnect = os.environ.get("PAHO_WAIT_FOR_DISCONNECT") == "1"
done = threading.Event()


def say(line):
    print(line, flush=True)


def on_connect(client, userdata, flags, rc, properties=None):
    if rc != 0:
        say(f"refused {int(rc.value if hasattr(rc, 'value') else rc)}")
        done.set()
        return
    say("connected")
    client.subscribe(f"{topic}/1/+", qos=1)


def on_subscribe(client, userdata, mid, reason_codes, properties=None):
    client.publish(f"{topic}/1", payload, qos=1)


def on_message(client, userdata, message):
    say(f"reply {message.topic.rsplit('/', 1)[1]}")
    if not wait_for_disconnect:
        done.set()


def on_disconnect(client, userdata, flags, rc, properties=None):
    say("disconnected")
    done.set()


client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"paho-{os.getpid()}")
client.tls_set(ca_certs=ca, certfile=None if cert == "-" else cert, keyfile=None if key == "-" else key)
client.on_connect = on_connect
client.on_subscribe = on_subscribe
client.on_message = on_message
client.on_disconnect = on_disconnect
client.reconnect_delay_set(min_delay=60, max_delay=60)
try:
    client.connect(host, int(port))
except Exception as err:  # a refused handshake
    say(f"refused {err}")
    sys.exit(0)
client.loop_start()
done.wait(30)
client.loop_stop()
