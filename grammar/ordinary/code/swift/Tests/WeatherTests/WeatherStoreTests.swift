// policyc ordinary sample: an everyday XCTest case with a stub service.
// Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/swift/ to measure rule breadth.

import XCTest
@testable import Weather

private struct StubService: WeatherService {
    var result: Result<[Forecast], Error>

    func forecast(for city: String) async throws -> [Forecast] {
        try result.get()
    }
}

@MainActor
final class WeatherStoreTests: XCTestCase {
    private func forecast(_ city: String, _ temperature: Double, dayOffset: Int) -> Forecast {
        Forecast(id: UUID(), city: city, temperature: temperature, summary: "Sunny",
                 date: Date(timeIntervalSince1970: TimeInterval(dayOffset * 86_400)))
    }

    func testLoadSortsByDate() async {
        let later = forecast("Lyon", 21, dayOffset: 2)
        let sooner = forecast("Lyon", 18, dayOffset: 1)
        let store = WeatherStore(service: StubService(result: .success([later, sooner])))

        await store.load(city: "Lyon")

        XCTAssertEqual(store.forecasts, [sooner, later])
        XCTAssertEqual(store.warmest, later)
        XCTAssertNil(store.errorMessage)
    }

    func testEmptyCityShowsAMessage() async {
        let store = WeatherStore(service: StubService(result: .success([])))

        await store.load(city: "   ")

        XCTAssertEqual(store.errorMessage, "Enter a city name.")
        XCTAssertTrue(store.forecasts.isEmpty)
    }

    func testServiceErrorIsShown() async {
        let store = WeatherStore(service: StubService(result: .failure(WeatherError.badStatus(503))))

        await store.load(city: "Oslo")

        XCTAssertEqual(store.errorMessage, "The weather service answered with status 503.")
        XCTAssertFalse(store.isLoading)
    }
}
