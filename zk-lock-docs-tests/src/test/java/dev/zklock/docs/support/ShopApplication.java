package dev.zklock.docs.support;

/**
 * The reader's application class, as the testing page's snippet starts it.
 */
public final class ShopApplication {

	private ShopApplication() {
	}

	public static void main(String[] args) {
		throw new UnsupportedOperationException("a stand-in for the reader's application");
	}

}
